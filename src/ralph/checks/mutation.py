"""The `mutation` method: do the agent's tests notice when its new code is wrong?

Only where it decides (`gi.decisive`: the DONE that would reach 3/3, and the final
verification); elsewhere it is shown as skipped. It runs the command unmutated once in the room
"<tree>.mutant", traced, then mutates the code changed since the run began that this run
executed (the start copy against room A, whoever changed it: checks/mutantsource.py,
checks/tracing.py, rules/evidence/mutantplan.py), runs it against each mutant in that room (every
changed
file placed anew in each run, one of them mutated), and refuses when the share of mutants the
tests killed is below `min_score`, naming the survivors; nothing to mutate is a refusal too.
A mutant is killed when the command fails or outlives its own timeout (3x the unmutated run,
plus a grace); the whole check stops at `timeout`. A mutant that only breaks the tests'
collection (pytest's own record, checks/runrecord.py: an import that fails, fewer tests
collected than the unmutated run) shows nothing of what the tests check: it counts neither way,
and a check where every mutant did is a refusal. Code the tests run from a string or an
archive cannot be mutated at all: a refusal naming it (checks/mutantsource.py). No mutation
tool drives this, see rules/evidence/mutants.py for why.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import replace

from ralph.checks.command import run_command
from ralph.checks.context import CheckItem, Dispatch, GateInput, Phase
from ralph.checks.mutantsource import Changes, no_code, none_chosen
from ralph.checks.result import CheckResult
from ralph.plugins.hookspecs import hookimpl
from ralph.rules.evidence.mutantplan import plan
from ralph.rules.evidence.mutants import Mutant
from ralph.rules.evidence.testfiles import DEFAULT_GLOBS
from ralph.rules.text.redact import redactor, secret_values
from ralph.specs.checkconfig import ExternalConfig, MutationConfig

SUFFIX = "mutant"  # the room the mutants run in: "<tree's room>.mutant"
SLOWER = 3.0  # a mutant may take this many times the unmutated run ...
GRACE = 5.0  # ... plus this many seconds, before it counts as killed (an endless loop)
NAMED = 10  # surviving mutants named in a refusal
CONTROL_FAILED = (
    "the tests failed on the unmutated code after mutants ran: their outcome depends on more "
    "than the code (state kept between runs?), so no mutant counts as killed"
)
SKIPPED = "skipped: runs only at the DONE that would reach 3/3 and at the final verification"
STILLBORN = (
    "no mutant counts: every one broke the tests' collection (an import that fails), which "
    "shows nothing of what the tests check"
)


class Mutation:
    phase: Phase = "costly"  # after the test commands passed: mutants of failing code prove nothing

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        cfg = item.config
        assert isinstance(cfg, MutationConfig)
        if not gi.decisive:
            return CheckResult(item.name, "mutation", True, item.required, SKIPPED, skipped=True)
        key = json.dumps([gi.spec_path, "mutation", cfg.model_dump()], sort_keys=True)
        if item.cache and gi.cache is not None:
            hit = gi.cache.get(gi.tree, key)
            if hit is not None:
                return replace(hit, name=item.name, required=item.required, cached=True)
        result = _Run(gi, item, cfg).run()
        if item.cache and gi.cache is not None:
            gi.cache.put(gi.tree, key, result)
        return result


class _Run:
    def __init__(self, gi: GateInput, item: CheckItem, cfg: MutationConfig) -> None:
        self.gi, self.item, self.cfg = gi, item, cfg
        self.started = time.perf_counter()
        self.warnings: tuple[str, ...] = ()
        self.env: dict[str, str] = dict(gi.env if gi.env is not None else os.environ)
        self.source: Changes | None = None

    def result(
        self, passed: bool, summary: str, output: str = "", *, interrupted: bool = False
    ) -> CheckResult:
        seconds = time.perf_counter() - self.started
        # the code the refusal quotes is the agent's: a secret value written into it is no
        # more shown than one a command printed
        hide = redactor(secret_values(self.env)).text
        return CheckResult(
            self.item.name,
            "mutation",
            passed,
            self.item.required,
            hide(summary),
            hide(output),
            seconds=seconds,
            warnings=self.warnings,
            interrupted=interrupted,
        )

    def left(self) -> float:
        return float(self.cfg.timeout) - (time.perf_counter() - self.started)

    def command(self, timeout: float) -> ExternalConfig:
        own = self.cfg.command
        command = own or self.gi.meta.test_command or ""  # the front matter requires one
        report = None if own else self.gi.meta.test_report
        return ExternalConfig(command=command, timeout=max(timeout, 0.001), report=report)

    def test(self, mutant: Mutant | None, timeout: float, *, traced: bool = False) -> CheckResult:
        """One run: every changed file placed anew as the tree has it (its mode and times),
        `mutant` in its file. `traced`: the first run, with the tracer whose lines choose the
        mutants. Code that behaves otherwise when it is not traced fails the control run,
        which is untraced as every mutant's is."""
        assert self.gi.rooms is not None and self.source is not None
        files = dict(self.source.placed)
        if mutant is not None:
            files[mutant.path] = self.source.mutated(mutant)
        if traced:
            files.update(self.source.tracing.files)
        path, env = self.gi.rooms(SUFFIX, files)
        env = self.source.tracing.env(env, path) if traced else env
        env = {**env, "RALPH_SPEC": self.gi.spec_path, "RALPH_CHECK": self.item.name}
        return run_command(
            self.command(timeout),
            path,
            env,
            self.gi.cancel,
            name=self.item.name,
            room=path,
            launcher=self.gi.launcher,
        )

    def run(self) -> CheckResult:
        gi = self.gi
        if gi.rooms is None:
            return self.result(False, "cannot run here: this gate has no clean room")
        if gi.start is None:
            return self.result(
                False,
                "no copy of the tree as it was when the run began "
                "(run `ralph reset` and start the run again)",
            )
        room, self.env = gi.rooms(SUFFIX, {})
        globs = gi.meta.tests.paths or DEFAULT_GLOBS
        self.source = source = Changes.since(gi.start, room, globs, gi.spec_path)
        if not source.code and not source.data:
            return self.result(False, no_code(source.others))
        base = self.test(None, self.left(), traced=True)
        if base.interrupted:
            return self.result(False, "interrupted", interrupted=True)
        if not base.passed:
            return self.result(
                False, f"the tests fail without any mutant ({base.summary})", base.output
            )
        seen = source.tracing.read(room)
        targets = source.targets(seen)
        if isinstance(targets, str):
            return self.result(False, targets)
        self.warnings = source.warnings(seen)
        texts = {rel: (old, now) for rel, (old, now, _) in targets.items()}
        lines = {rel: found for rel, (_, _, found) in targets.items()}
        chosen, total = plan(texts, self.cfg.max_mutants, lines)
        if not chosen:
            return self.result(False, none_chosen(source, targets, seen))
        return self.mutate(chosen, total, base)

    def mutate(self, chosen: list[Mutant], total: int, unmutated: CheckResult) -> CheckResult:
        """Each mutant in turn, and once more the unmutated code at a place no test can
        foresee: tests that keep state between runs (pass once, then fail whatever the code)
        would kill every mutant, and fail there."""
        bound = SLOWER * unmutated.seconds + GRACE
        control = random.SystemRandom().randint(1, len(chosen))
        survivors: list[Mutant] = []
        tried = broke = 0
        for mutant in chosen:
            res = self.bounded(mutant, bound)
            if res is None:
                break
            if res.interrupted:
                return self.result(False, "interrupted", interrupted=True)
            tried += 1
            if res.passed:
                survivors.append(mutant)
            elif stillborn(res, unmutated):
                broke += 1
            if tried == control:
                again = self.bounded(None, bound)
                if again is None:
                    break
                if again.interrupted:
                    return self.result(False, "interrupted", interrupted=True)
                if not again.passed:
                    return self.result(False, f"{CONTROL_FAILED} ({again.summary})", again.output)
        if self.gi.cancel.is_set():
            return self.result(False, "interrupted", interrupted=True)
        return self.verdict(tried, survivors, len(chosen) - broke, total, broke)

    def bounded(self, mutant: Mutant | None, bound: float) -> CheckResult | None:
        """One run within its own bound and what is left of the budget; None when the budget
        is spent (before it, or by this run: a run the budget cut short proves nothing)."""
        left = self.left()
        if left <= 0 or self.gi.cancel.is_set():
            return None
        res = self.test(mutant, min(bound, left))
        if left < bound and not res.passed and not res.interrupted and res.seconds >= left:
            return None
        return res

    def verdict(
        self, tried: int, survivors: list[Mutant], chosen: int, total: int, broke: int = 0
    ) -> CheckResult:
        """The score is over every mutant chosen but those that only broke the collection
        (`broke`, left out of `tried` and `chosen`): one the budget left untried proves
        nothing, so it counts as surviving (tests slowed down on purpose shrink no sample)."""
        cfg = self.cfg
        tried -= broke
        if chosen <= 0:
            return self.result(False, STILLBORN)
        killed = tried - len(survivors)
        score = killed / chosen
        notes = [f"{chosen + broke} chosen of {total} mutants"] if total > chosen + broke else []
        if broke:
            notes.append(f"{broke} that broke the tests' collection do not count")
        untried = chosen - tried
        if untried:
            notes.append(
                f"{untried} not tried within its {float(cfg.timeout):g} s timeout "
                "count as surviving"
            )
        line = f"score {score:.2f}: {killed} of {chosen} mutants killed"
        line += f" ({'; '.join(notes)})" if notes else ""
        if score >= cfg.min_score:
            return self.result(True, line)
        named = [m.describe() for m in survivors[:NAMED]]
        more = len(survivors) - len(named)
        rest = len(survivors) - 3
        head = "; ".join(named[:3]) + (f"; and {rest} more (below)" if rest > 0 else "")
        lines = ["the tests still pass with these changes to the code:", *named]
        lines += [f"... and {more} more"] if more else []
        lines += ["make the tests fail on each (assert what the code must return)"]
        if untried:
            lines.append("raise config.timeout or lower config.max_mutants to try them all")
        summary = f"{line}, below {cfg.min_score:g}" + (f"; survived: {head}" if named else "")
        return self.result(False, summary, "\n".join(lines if named else lines[-1:]))


def stillborn(ran: CheckResult, unmutated: CheckResult) -> bool:
    """Did a mutant's run only break the tests' collection (by pytest's own record): an
    error while collecting, a collection that never finished, or fewer tests collected than
    the unmutated run's? Without a record (no pytest) it cannot be told: it counts."""
    now, before = ran.record, unmutated.record
    if now is None or before is None:
        return False
    fewer = before.collected is not None and (now.collected or 0) < before.collected
    return now.broken or fewer


@hookimpl
def ralph_check_methods() -> dict[str, Mutation]:
    return {"mutation": Mutation()}
