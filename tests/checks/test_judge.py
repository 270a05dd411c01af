"""checks/judge.py: a semantic check's judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

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


@pytest.mark.slow  # real commands
def test_semantic_judge_decides_through_a_real_agent(tmp_path: Path) -> None:
    log = tmp_path / "judge.log"
    path = spec(
        tmp_path,
        "acceptance_criteria: [login works, logout works]\n"
        "checks:\n  - method: semantic\n    config:\n"
        "      check_for: '{{acceptance_criteria}}'\n      model: haiku\n",
    )
    yes = run_gate(path, tmp_path, output="done", judge=judge(tmp_path, "VERIFIED", log))
    assert yes.passed and yes.results[0].summary.startswith("VERIFIED")
    no = run_gate(
        path, tmp_path, output="done", judge=judge(tmp_path, "NOT_VERIFIED: logout missing", log)
    )
    assert no.reasons == ("semantic: NOT_VERIFIED: logout missing",)
    # a VERIFIED without valid evidence for each criterion counts as NOT_VERIFIED
    for bare, why in (
        ("VERIFIED-BARE", "no evidence cited"),
        ("VERIFIED-WRONG", "the quoted text is not there"),
    ):
        unproven = run_gate(path, tmp_path, output="done", judge=judge(tmp_path, bare))
        assert not unproven.passed
        summary = unproven.results[0].summary
        assert summary.startswith("NOT_VERIFIED: the judge said VERIFIED with ") and why in summary
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[0] == {
        "mode": "JUDGE",
        "model": "haiku",
        "criteria": ["1. login works", "2. logout works"],
    }
