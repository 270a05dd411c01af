"""checks/semantic.py: negative patterns first, then a judge (an agent, tests/fakes/judge.py);
string matching when the judge fails; a VERIFIED stands while the tree is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ralph.checks.semantic  # noqa: F401 -- the method these tests run through run_gate
from ralph.checks.result import CheckCache
from ralph.checks.runner import run_gate
from tests.checks.test_judge import judge, spec


def test_semantic_without_any_judge_uses_string_matching(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks:\n  - method: semantic\n")
    gate = run_gate(path, tmp_path, output="x")
    assert gate.reasons == (
        "semantic: no judge available; fell back to string matching: "
        "no criteria and no promise to match",
    )


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
