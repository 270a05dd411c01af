"""Completion checks (ralph.checks): every method of the completion-criteria seed with its
configuration keys and error handling, run for real (commands through run_process, the judge
through CommandAgent.run)."""

from __future__ import annotations

import sys
from pathlib import Path

from ralph.agents.command import CommandAgent
from ralph.checks.judge import AgentJudge, JudgeAnswer, parse_verdict
from ralph.checks.runner import run_gate
from ralph.process.request import OPEN

FAKES = Path(__file__).parents[1] / "fakes"


PY = sys.executable


def spec(root: Path, front: str, body: str = "# s\n- [x] done\n", name: str = "a.spec.md") -> str:
    path = root / "specs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}")
    return f"specs/{name}"


def judge(root: Path, answer: str, log: Path | None = None) -> AgentJudge:
    argv = [PY, str(FAKES / "judge.py"), answer, *([str(log)] if log else [])]
    state = root / ".ralph"
    state.mkdir(exist_ok=True)
    return AgentJudge(CommandAgent("judge", argv), root, state, "specs/a.spec.md", 1, confined=OPEN)


def test_semantic_negative_patterns_reject_before_the_judge(tmp_path: Path) -> None:
    log = tmp_path / "judge.log"
    path = spec(
        tmp_path,
        "checks:\n  - method: semantic\n    config:\n      negative_patterns: [TODO]\n",
    )
    gate = run_gate(
        path, tmp_path, output="left a todo here", judge=judge(tmp_path, "VERIFIED", log)
    )
    assert gate.reasons == ("semantic: negative pattern in the agent's output: 'TODO'",)
    assert not log.exists()


def test_judge_that_cannot_start_falls_back(tmp_path: Path) -> None:
    (tmp_path / ".ralph").mkdir()
    j = AgentJudge(
        CommandAgent("ghost", ["no-such-judge-xyz"]),
        tmp_path,
        tmp_path / ".ralph",
        "s",
        1,
        confined=OPEN,
    )
    assert j("p", 5, None).verdict is None


def test_parse_verdict_takes_the_last_answer_line() -> None:
    text = "VERIFIED\nNOT_VERIFIED: tests fail"
    assert parse_verdict(text) == JudgeAnswer(False, "tests fail", text)
    text = "**NOT_VERIFIED** - x\n`VERIFIED`"
    assert parse_verdict(text) == JudgeAnswer(True, "verified", text)
    assert parse_verdict("Reply VERIFIED or not").verdict is None
