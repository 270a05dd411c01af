"""checks/judge.py: a semantic check's judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.checks.judge import AgentJudge, JudgeAnswer, parse_verdict
from ralph.checks.result import CheckCache
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


@pytest.mark.slow  # real commands
@pytest.mark.parametrize("answer", ["crash", "silent", "echo"])
def test_semantic_falls_back_to_string_matching_when_the_judge_fails(
    tmp_path: Path, answer: str
) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - method: semantic\n    config: {check_for: [tests pass]}\n",
    )
    j = judge(tmp_path, answer)
    ok = run_gate(path, tmp_path, output="all tests pass now", judge=j)
    assert ok.passed and "fell back to string matching" in ok.results[0].summary
    bad = run_gate(path, tmp_path, output="nothing", judge=j)
    assert not bad.passed
    assert "not evident in the agent's output: tests pass" in bad.reasons[0]


@pytest.mark.slow  # real commands
def test_semantic_role_falls_back_to_its_promise(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "reviewer:\n  promise: REVIEWED\n  description: d\n  verification_method: semantic\n",
    )
    j = judge(tmp_path, "crash")
    ok = run_gate(path, tmp_path, mode="REVIEW", output="<promise>REVIEWED</promise>", judge=j)
    assert ok.passed
    assert "fell back to string matching" in ok.results[-1].summary


@pytest.mark.slow  # real commands
def test_costly_checks_are_skipped_once_a_required_check_failed(tmp_path: Path) -> None:
    log = tmp_path / "judge.log"
    path = spec(
        tmp_path,
        "test_command: exit 1\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n",
    )
    gate = run_gate(path, tmp_path, output="x", judge=judge(tmp_path, "VERIFIED", log))
    assert [r.skipped for r in gate.results] == [False, True]
    assert not log.exists()


@pytest.mark.slow  # real commands
def test_verified_stands_while_the_tree_is_unchanged(tmp_path: Path) -> None:
    log = tmp_path / "judge.log"
    path = spec(
        tmp_path,
        "checks:\n  - method: semantic\n    config: {check_for: [x], negative_patterns: [TODO]}\n"
        "  - name: fresh\n    method: semantic\n    cache: false\n    config: {check_for: [y]}\n",
    )
    cache, j = CheckCache(), judge(tmp_path, "VERIFIED", log)
    first = run_gate(path, tmp_path, output="ok", judge=j, cache=cache, tree="t1")
    again = run_gate(path, tmp_path, output="ok", judge=j, cache=cache, tree="t1")
    assert first.passed and again.passed
    assert [r.cached for r in again.results] == [True, False]
    # negative patterns still look at the new output; a changed tree asks again
    todo = run_gate(path, tmp_path, output="TODO", judge=j, cache=cache, tree="t1")
    assert todo.reasons == ("semantic-1: negative pattern in the agent's output: 'TODO'",)
    run_gate(path, tmp_path, output="ok", judge=j, cache=cache, tree="t2")
    asked = [json.loads(line)["criteria"] for line in log.read_text().splitlines()]
    # t1: both; t1 again: only the uncached one; TODO: rejected, the rest skipped; t2: both
    assert asked == [["1. x"], ["1. y"], ["1. y"], ["1. x"], ["1. y"]]
    # NOT_VERIFIED is asked again (another judge may see it otherwise), as is a failed judge
    no = judge(tmp_path, "NOT_VERIFIED: nope", log)
    run_gate(path, tmp_path, output="ok", judge=no, cache=cache, tree="t4")
    assert (
        not run_gate(path, tmp_path, output="ok", judge=no, cache=cache, tree="t4")
        .results[0]
        .cached
    )
    crash = judge(tmp_path, "crash", log)
    run_gate(path, tmp_path, output="x y", judge=crash, cache=cache, tree="t3")
    again3 = run_gate(path, tmp_path, output="x y", judge=crash, cache=cache, tree="t3")
    assert not any(r.cached for r in again3.results)
