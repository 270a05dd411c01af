"""Completion checks (ralph.checks): every method of the completion-criteria seed with its
configuration keys and error handling, run for real (commands through run_process, the judge
through CommandAgent.run)."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.checks.claims import VState
from ralph.checks.command import run_command
from ralph.checks.judge import AgentJudge, JudgeAnswer, parse_verdict
from ralph.checks.result import CheckCache
from ralph.checks.runner import run_gate
from ralph.errors import SpecError
from ralph.process.request import OPEN
from ralph.specs.checkconfig import ExternalConfig

FAKES = Path(__file__).parent / "fakes"
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


# --------------------------------------------------------------------------- external


def test_external_exit_code_and_output_rules(tmp_path: Path) -> None:
    def run(**kw: object) -> tuple[bool, str]:
        res = run_command(ExternalConfig.model_validate(kw), tmp_path, confined=OPEN)
        return res.passed, res.summary

    assert run(command="echo all passed") == (True, "exit code 0")
    assert run(command="echo boom; exit 3") == (False, "exit code 3, expected 0")
    assert run(command="exit 3", success_exit_code=3)[0]
    assert run(command="echo 5 passed", output_contains="passed")[0]
    assert run(command="echo 1 failed", output_contains="passed") == (
        False,
        "output does not contain 'passed'",
    )
    assert run(command="echo FAILED >&2", output_not_contains="FAILED") == (
        False,
        "output contains 'FAILED'",
    )
    assert run(command="echo ok", output_not_contains="FAILED")[0]


def test_external_runs_in_its_working_dir_and_keeps_the_output_tail(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "marker").write_text("x")
    ok = run_command(
        ExternalConfig(command="test -f marker", working_dir="sub"), tmp_path, confined=OPEN
    )
    assert ok.passed
    loud = "; ".join(f"echo line{i}" for i in range(40)) + "; exit 1"
    bad = run_command(ExternalConfig(command=loud), tmp_path, confined=OPEN)
    assert not bad.passed
    assert bad.output.splitlines() == [f"line{i}" for i in range(20, 40)]


def test_external_that_cannot_start_is_a_failed_check(tmp_path: Path) -> None:
    missing_dir = run_command(
        ExternalConfig(command="true", working_dir="nope"), tmp_path, confined=OPEN
    )
    assert not missing_dir.passed
    assert missing_dir.summary == "cannot start: working directory nope does not exist"
    missing_cmd = run_command(
        ExternalConfig(command="no-such-command-xyz"), tmp_path, confined=OPEN
    )
    assert not missing_cmd.passed
    assert "exit code 127" in missing_cmd.summary
    assert "not found" in missing_cmd.output


def test_external_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 60 & echo $! > {pidfile}; wait"
    started = time.monotonic()
    res = run_command(ExternalConfig(command=cmd, timeout=0.5), tmp_path, confined=OPEN)
    assert time.monotonic() - started < 30
    assert not res.passed and res.summary.startswith("timed out after 0.5 s")
    import psutil

    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the check's child survived its timeout"
        time.sleep(0.05)


def test_external_cancelled_is_interrupted_not_failed(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    res = run_command(ExternalConfig(command="sleep 30"), tmp_path, cancel=cancel, confined=OPEN)
    assert res.interrupted and not res.passed


# --------------------------------------------------------------------------- the gate


def test_spec_without_front_matter_passes_untouched(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_text("# plain\n- [ ] open\n")
    assert run_gate("PROMPT.md", tmp_path).passed


def test_bad_front_matter_is_a_spec_error(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks:\n  - method: external\n    config: {}\n")
    with pytest.raises(SpecError, match=r"specs/a.spec.md: front matter: checks\[0\]"):
        run_gate(path, tmp_path)


def test_test_command_and_checks_gate_and_report_reasons(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "test_command: echo 3 tests failed; exit 1\n"
        "checks:\n"
        "  - name: lint\n    method: external\n    config: {command: 'true'}\n"
        "  - name: docs\n    method: external\n    required: false\n"
        "    config: {command: 'exit 2'}\n",
    )
    gate = run_gate(path, tmp_path)
    assert not gate.passed
    assert gate.reasons == ("test_command: exit code 1, expected 0",)
    assert gate.warnings == ("docs: exit code 2, expected 0",)
    assert "3 tests failed" in gate.report()
    assert [r.name for r in gate.results] == ["test_command", "lint", "docs"]


def test_optional_check_failing_only_warns(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - name: cov\n    method: external\n    required: false\n"
        "    config: {command: 'exit 1'}\n",
    )
    gate = run_gate(path, tmp_path)
    assert gate.passed and gate.warnings


def test_string_match_needs_the_agents_own_promise(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - method: string_match\n    config: {promise: AUTH_DONE}\n",
    )
    prompt = "When done print <promise>AUTH_DONE</promise>\n"
    ok = run_gate(path, tmp_path, mode="IMPLEMENT", output="work\n<promise>auth_done</promise>\n")
    assert ok.passed
    missing = run_gate(path, tmp_path, mode="IMPLEMENT", output="I did it, AUTH_DONE\n")
    assert missing.reasons == (
        "string_match: the agent did not print <promise>AUTH_DONE</promise>",
    )
    quoted = run_gate(path, tmp_path, mode="IMPLEMENT", output=prompt, prompt=prompt)
    assert not quoted.passed
    # the final verification does not ask for the coder's promise again
    verify = run_gate(path, tmp_path, mode="VERIFY")
    assert verify.passed and verify.results[0].skipped


def test_role_criteria_apply_by_mode(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "coder:\n  promise: BUILT\n  description: it builds\n"
        "  verification_method: external\n  verification_config: {command: 'exit 1'}\n"
        "reviewer:\n  promise: REVIEWED\n  description: reviewed\n",
    )
    implement = run_gate(path, tmp_path, mode="IMPLEMENT", output="<promise>BUILT</promise>")
    assert implement.reasons == ("coder: exit code 1, expected 0",)
    no_promise = run_gate(path, tmp_path, mode="IMPLEMENT", output="done")
    assert [r.name for r in no_promise.failed] == ["coder.promise"]  # the command is not run
    review = run_gate(path, tmp_path, mode="REVIEW", output="<promise>REVIEWED</promise>")
    assert review.passed


def test_strict_tier_compares_the_claim_with_the_disk(tmp_path: Path) -> None:
    transitions: list[tuple[VState, VState]] = []
    path = spec(tmp_path, "verification: strict\n", "# s\n- [x] one\n- [ ] two\n")
    gate = run_gate(path, tmp_path, on_transition=lambda a, b: transitions.append((a, b)))
    assert gate.reasons == (
        "checkboxes: status: claimed complete, on disk incomplete (1 of 2 boxes unticked)",
    )
    assert [b.value for _, b in transitions] == [
        "read_state",
        "mismatch",
        "retry",
        "read_state",
        "mismatch",
        "escalate",
    ]
    done = spec(tmp_path, "verification: strict\n", "# s\n- [x] one\n```\n- [ ] code\n```\n")
    assert run_gate(done, tmp_path).passed
    standard = spec(tmp_path, "verification: standard\n", "# s\n- [ ] open\n")
    assert run_gate(standard, tmp_path).passed


# --------------------------------------------------------------------------- semantic


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


def test_semantic_role_falls_back_to_its_promise(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "reviewer:\n  promise: REVIEWED\n  description: d\n  verification_method: semantic\n",
    )
    j = judge(tmp_path, "crash")
    ok = run_gate(path, tmp_path, mode="REVIEW", output="<promise>REVIEWED</promise>", judge=j)
    assert ok.passed
    assert "fell back to string matching" in ok.results[-1].summary


def test_semantic_without_any_judge_uses_string_matching(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks:\n  - method: semantic\n")
    gate = run_gate(path, tmp_path, output="x")
    assert gate.reasons == (
        "semantic: no judge available; fell back to string matching: "
        "no criteria and no promise to match",
    )


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


# --------------------------------------------------------------------------- multi_stage


def test_multi_stage_required_stages_gate_and_optional_only_warn(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    path = spec(
        tmp_path,
        "checks:\n  - name: qa\n    method: multi_stage\n    config:\n      stages:\n"
        "        - {name: style, method: external, required: false, config: {command: 'exit 1'}}\n"
        f"        - {{name: unit, method: external, config: {{command: 'echo u >> {ran}'}}}}\n"
        "        - {name: e2e, method: external,\n"
        f"           config: {{command: 'echo e >> {ran}; exit 4'}}}}\n"
        f"        - {{name: last, method: external, config: {{command: 'echo l >> {ran}'}}}}\n",
    )
    gate = run_gate(path, tmp_path)
    assert gate.reasons == ("qa: stage 'e2e': exit code 4, expected 0",)
    assert gate.warnings == ("qa: stage 'style': exit code 1, expected 0",)
    assert ran.read_text().split() == ["u", "e"]  # require_all: stops at the first failure


def test_multi_stage_require_all_false_runs_every_stage(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - method: multi_stage\n    config:\n      require_all: false\n"
        "      stages:\n"
        "        - {name: a, method: external, config: {command: 'exit 1'}}\n"
        "        - {name: b, method: external, config: {command: 'exit 2'}}\n",
    )
    gate = run_gate(path, tmp_path)
    assert gate.reasons == (
        "multi_stage: stage 'a': exit code 1, expected 0; stage 'b': exit code 2, expected 0",
    )


def test_costly_checks_are_skipped_once_a_required_check_failed(tmp_path: Path) -> None:
    log = tmp_path / "judge.log"
    path = spec(
        tmp_path,
        "test_command: exit 1\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n",
    )
    gate = run_gate(path, tmp_path, output="x", judge=judge(tmp_path, "VERIFIED", log))
    assert [r.skipped for r in gate.results] == [False, True]
    assert not log.exists()


# --------------------------------------------------------------------------- cache, parallel


def test_unchanged_tree_is_not_tested_again(tmp_path: Path) -> None:
    count = tmp_path / "count"
    path = spec(
        tmp_path,
        f"test_command: echo run >> {count}\n"
        f"checks:\n  - name: fresh\n    method: external\n    cache: false\n"
        f"    config: {{command: 'echo fresh >> {count}'}}\n",
    )
    cache = CheckCache()
    first = run_gate(path, tmp_path, cache=cache, tree="tree-1")
    again = run_gate(path, tmp_path, cache=cache, tree="tree-1")
    changed = run_gate(path, tmp_path, cache=cache, tree="tree-2")
    unknown = run_gate(path, tmp_path, cache=cache, tree=None)
    assert first.passed and again.passed and changed.passed and unknown.passed
    assert [r.cached for r in again.results] == [True, False]
    assert count.read_text().split().count("run") == 3  # tree-1 once, tree-2, no key
    assert count.read_text().split().count("fresh") == 4  # cache: false always runs


def test_independent_external_checks_run_in_parallel(tmp_path: Path) -> None:
    # Each check waits (bounded) until the other has started: only a parallel run passes.
    a, b = tmp_path / "a", tmp_path / "b"
    wait = (
        "i=0; while [ ! -f {other} ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
        "test -f {other}"
    )
    cmd_a = f"touch {a}; {wait.format(other=b)}"
    cmd_b = f"touch {b}; {wait.format(other=a)}"
    path = spec(
        tmp_path,
        "parallel_checks: true\nchecks:\n"
        f"  - {{name: a, method: external, config: {{command: '{cmd_a}'}}}}\n"
        f"  - {{name: b, method: external, config: {{command: '{cmd_b}'}}}}\n",
    )
    gate = run_gate(path, tmp_path)
    assert gate.passed, gate.reasons


def test_check_results_are_reported_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    path = spec(tmp_path, "test_command: 'true'\n")
    run_gate(path, tmp_path, on_result=lambda r: seen.append(json.dumps(r.to_json())))
    assert json.loads(seen[0])["name"] == "test_command"


def test_check_commands_know_their_spec_and_name(tmp_path: Path) -> None:
    out = tmp_path / "env"
    path = spec(
        tmp_path,
        f"checks: [{{name: envy, method: external, config: "
        f"{{command: 'echo $RALPH_SPEC $RALPH_CHECK $EXTRA > {out}'}}}}]\n",
    )
    assert run_gate(path, tmp_path, env={"PATH": "/usr/bin:/bin", "EXTRA": "x"}).passed
    assert out.read_text().split() == ["specs/a.spec.md", "envy", "x"]


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
