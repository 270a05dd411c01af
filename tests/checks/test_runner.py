"""checks/runner.py: running a spec's checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.checks.result import CheckCache
from ralph.checks.runner import run_gate
from ralph.errors import SpecError


def spec(root: Path, front: str, body: str = "# s\n- [x] done\n", name: str = "a.spec.md") -> str:
    path = root / "specs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}")
    return f"specs/{name}"


def test_spec_without_front_matter_passes_untouched(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_text("# plain\n- [ ] open\n")
    assert run_gate("PROMPT.md", tmp_path).passed


def test_bad_front_matter_is_a_spec_error(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks:\n  - method: external\n    config: {}\n")
    with pytest.raises(SpecError, match=r"specs/a.spec.md: front matter: checks\[0\]"):
        run_gate(path, tmp_path)


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


def test_semantic_without_any_judge_uses_string_matching(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks:\n  - method: semantic\n")
    gate = run_gate(path, tmp_path, output="x")
    assert gate.reasons == (
        "semantic: no judge available; fell back to string matching: "
        "no criteria and no promise to match",
    )


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
def test_optional_check_failing_only_warns(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - name: cov\n    method: external\n    required: false\n"
        "    config: {command: 'exit 1'}\n",
    )
    gate = run_gate(path, tmp_path)
    assert gate.passed and gate.warnings


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
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


@pytest.mark.slow  # real commands
def test_check_results_are_reported_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    path = spec(tmp_path, "test_command: 'true'\n")
    run_gate(path, tmp_path, on_result=lambda r: seen.append(json.dumps(r.to_json())))
    assert json.loads(seen[0])["name"] == "test_command"


@pytest.mark.slow  # real commands
def test_check_commands_know_their_spec_and_name(tmp_path: Path) -> None:
    out = tmp_path / "env"
    path = spec(
        tmp_path,
        f"checks: [{{name: envy, method: external, config: "
        f"{{command: 'echo $RALPH_SPEC $RALPH_CHECK $EXTRA > {out}'}}}}]\n",
    )
    assert run_gate(path, tmp_path, env={"PATH": "/usr/bin:/bin", "EXTRA": "x"}).passed
    assert out.read_text().split() == ["specs/a.spec.md", "envy", "x"]
