"""The `semantic` method: negative patterns reject first; then an agent judges the criteria
(VERIFIED / NOT_VERIFIED); when the judge fails, string matching decides instead (the seed's
fallback)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import replace

from ralph.checks.citations import check_citations
from ralph.checks.context import CheckItem, Dispatch, GateInput, Phase
from ralph.checks.judge import JudgeAnswer, judge_prompt
from ralph.checks.result import CheckResult
from ralph.checks.string_match import promises
from ralph.plugins.hookspecs import hookimpl
from ralph.specs.checkconfig import ACCEPTANCE_PLACEHOLDER, SemanticConfig


class Semantic:
    phase: Phase = "costly"

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        cfg, name, required = item.config, item.name, item.required
        assert isinstance(cfg, SemanticConfig)
        started = time.perf_counter()
        text = gi.output.casefold()
        for pattern in cfg.negative_patterns:
            if pattern.casefold() in text:
                return CheckResult(
                    name,
                    "semantic",
                    False,
                    required,
                    f"negative pattern in the agent's output: {pattern!r}",
                    seconds=time.perf_counter() - started,
                )
        criteria = _criteria(gi, cfg)
        # VERIFIED is about the tree: while the tree is unchanged it stands, and the agent call
        # (the costly part) is not repeated. NOT_VERIFIED is asked again (maybe of another
        # judge: fresh eyes); a failed judge is never cached.
        key = json.dumps([gi.spec_path, "judge", criteria, cfg.model], sort_keys=True)
        cache = gi.cache if item.cache else None
        hit = cache.get(gi.tree, key) if cache is not None else None
        if hit is not None:
            return replace(hit, name=name, required=required, cached=True, seconds=0.0)
        answer = JudgeAnswer(None, "no judge available")
        if gi.judge is not None:
            prompt = judge_prompt(gi.spec_path, gi.spec_text, criteria, gi.output)
            try:
                answer = gi.judge(prompt, float(cfg.timeout), cfg.model)
            except KeyboardInterrupt:
                return CheckResult(
                    name, "semantic", False, required, "interrupted", interrupted=True
                )
        seconds = time.perf_counter() - started
        if answer.verdict:
            unproven = check_citations(gi.root, answer.text, len(criteria))
            if unproven is not None:  # a verdict without valid evidence is no verdict
                answer = JudgeAnswer(False, f"the judge said VERIFIED with {unproven}", answer.text)
        if answer.verdict is not None:
            verdict = "VERIFIED" if answer.verdict else "NOT_VERIFIED"
            judged = CheckResult(
                name,
                "semantic",
                answer.verdict,
                required,
                f"{verdict}: {answer.reason}",
                seconds=seconds,
            )
            if answer.verdict and cache is not None:
                cache.put(gi.tree, key, judged)
            return judged
        # The judge failed: string matching decides for this DONE (the seed's fallback).
        fallback = _fallback(gi, criteria, item.promise)
        return CheckResult(
            name,
            "semantic",
            fallback is None,
            required,
            f"{answer.reason}; fell back to string matching: {fallback or 'matched'}",
            seconds=seconds,
        )


def _criteria(gi: GateInput, cfg: SemanticConfig) -> list[str]:
    if isinstance(cfg.check_for, str):
        if cfg.check_for.strip() == ACCEPTANCE_PLACEHOLDER:
            return list(gi.meta.criteria)
        return [cfg.check_for]
    return list(cfg.check_for) or list(gi.meta.criteria)


def _fallback(gi: GateInput, criteria: Sequence[str], promise: str | None) -> str | None:
    """None when string matching accepts; else what is missing."""
    if promise is not None:
        if promise.casefold() in promises(gi):
            return None
        return f"no <promise>{promise}</promise> in the agent's output"
    if not criteria:
        return "no criteria and no promise to match"
    text = gi.output.casefold()
    missing = [c for c in criteria if c.casefold() not in text]
    return f"not evident in the agent's output: {missing[0]}" if missing else None


@hookimpl
def ralph_check_methods() -> dict[str, Semantic]:
    return {"semantic": Semantic()}
