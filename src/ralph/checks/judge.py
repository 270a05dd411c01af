"""A semantic check's judge: an agent asked whether the criteria are met, and its answer read.

The judge runs through the same path as every rotation (`CommandAgent.run`, so `run_process`)
and must end with a line `VERIFIED` or `NOT_VERIFIED: <what is missing>`.
"""

from __future__ import annotations

import copy
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.command import KILL_GRACE
from ralph.checks.records import JudgeSpent, Record
from ralph.errors import AgentError
from ralph.process.request import Confinement
from ralph.rules.text.signals import agent_words
from ralph.store.disk.files import write_text_new

if TYPE_CHECKING:
    from ralph.agents.command import CommandAgent

JUDGE_OUTPUT_CHARS = 5000  # the seed's output[:5000]: what the judge reads of the agent's report
VERDICT = re.compile(r"^[\W_]*(NOT_VERIFIED|VERIFIED)\b[\W_]*(?P<reason>.*)$")


@dataclass(frozen=True)
class JudgeAnswer:
    verdict: bool | None  # None: the judge failed (could not run, no answer)
    reason: str
    text: str = ""  # the whole answer: its evidence lines are checked (checks/citations.py)


Judge = Callable[[str, float, "str | None"], JudgeAnswer]  # (prompt, timeout, model)


class AgentJudge:
    """A semantic check's judge: an agent run through the same path as every rotation
    (`CommandAgent.run`, so `run_process`), asked to answer VERIFIED or NOT_VERIFIED."""

    def __init__(
        self,
        agent: CommandAgent,
        root: Path,
        state_dir: Path,
        spec: str,
        iteration: int,
        cancel: threading.Event | None = None,
        record: Record | None = None,
        *,
        confined: Confinement,
    ) -> None:
        self.confined = confined  # where the judge's agent starts: the run's sandbox
        self.record = record  # told what each call spent (it counts in usage and budgets)
        self.spent: list[JudgeSpent] = []  # ...and kept, for the verdict that made the calls
        self.cancel = cancel  # set: the judge's process tree is stopped (ralph cancel --now)
        self.agent = agent
        self.root = root
        self.state_dir = state_dir
        self.spec = spec
        self.iteration = iteration

    def __call__(self, prompt: str, timeout: float, model: str | None) -> JudgeAnswer:
        from ralph.agents.request import AgentRequest

        agent = self.agent
        if model is not None:
            agent = copy.copy(agent)
            agent.extra_env = {**agent.extra_env, "RALPH_JUDGE_MODEL": model}
        prompt_file = self.state_dir / "judge-prompt.md"
        write_text_new(prompt_file, prompt)
        request = AgentRequest(
            prompt=prompt,
            prompt_file=prompt_file.resolve(),
            root=self.root,
            spec=self.spec,
            mode="JUDGE",
            iteration=self.iteration,
            state_dir=self.state_dir.resolve(),
            handoff_file=(self.state_dir / "judge-handoff.md").resolve(),
            timeout=timeout,
            kill_grace=KILL_GRACE,
            confined=self.confined,
        )
        try:
            result = agent.run(request, lambda stream, lines: None, cancel=self.cancel)
        except AgentError as exc:
            return JudgeAnswer(None, f"the judge ({agent.name}) could not start: {exc.message}")
        spent = JudgeSpent(self.iteration, self.spec, agent.name, result.usage)
        self.spent.append(spent)
        if self.record is not None:
            self.record(spent)
        if result.process.interrupted:
            raise KeyboardInterrupt
        if result.failure is not None:
            return JudgeAnswer(None, f"the judge ({agent.name}) failed: {result.failure}")
        return parse_verdict(agent_words(result.output_text, prompt, result.final_text), agent.name)


def parse_verdict(text: str, who: str = "judge") -> JudgeAnswer:
    """The last VERIFIED / NOT_VERIFIED line of the judge's answer."""
    found: JudgeAnswer | None = None
    for line in text.splitlines():
        match = VERDICT.match(line.strip())
        if match is not None:
            reason = match["reason"].strip().strip("*`").strip()
            ok = match.group(1) == "VERIFIED"
            found = JudgeAnswer(ok, reason or ("verified" if ok else "not verified"), text)
    if found is None:
        return JudgeAnswer(None, f"the judge ({who}) gave no VERIFIED or NOT_VERIFIED answer")
    return found


def judge_prompt(spec_path: str, spec_text: str, criteria: Sequence[str], report: str) -> str:
    listed = "\n".join(f"{n}. {c}" for n, c in enumerate(criteria, 1))
    listed = listed or "1. everything the spec asks for"
    return f"""\
# ralph: independent judgement of {spec_path}

You are an independent reviewer. Another agent says the spec below is done. Decide whether
these criteria are really met, by reading the project's files as they are now (run its tests if
that helps). Do not edit any file: you judge, you do not fix.

## Criteria to verify
{listed}

## The spec ({spec_path})
{spec_text.rstrip()}

## The end of the other agent's report
{report[-JUDGE_OUTPUT_CHARS:].strip() or "(it printed nothing)"}

## Your answer
For each criterion, cite the evidence you checked, one line each, by the criterion's number:
    EVIDENCE <n>: <file>:<line> "<text quoted exactly from that line>"
    EVIDENCE <n>: $ <command you ran> => "<what it printed>"
ralph checks every cited file and line: a VERIFIED without valid evidence for each criterion
counts as NOT_VERIFIED. Then end with one line that is exactly `VERIFIED` when every criterion
is met, or `NOT_VERIFIED: <what is missing>` when any is not.
"""
