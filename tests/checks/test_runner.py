"""checks/runner.py: running a spec's checks, phase by phase; the check commands played
in-process (tests/fakes/commands.py) through run_gate's process seam."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ralph.checks.runner import run_gate
from ralph.errors import SpecError
from ralph.process.request import ProcessRequest
from tests.fakes.commands import Commands


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


def test_test_command_and_checks_gate_and_report_reasons(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "test_command: pytest -q\n"
        "checks:\n"
        "  - name: lint\n    method: external\n    config: {command: lint}\n"
        "  - name: docs\n    method: external\n    required: false\n"
        "    config: {command: docs}\n",
    )
    fake = Commands({"pytest -q": (1, "3 tests failed\n"), "lint": (0, ""), "docs": (2, "")})
    gate = run_gate(path, tmp_path, launcher=fake.launcher)
    assert not gate.passed
    # the command's own word beside ralph's: its first error line (here its last line)
    assert gate.reasons == ("test_command: exit code 1, expected 0; error: 3 tests failed",)
    assert gate.warnings == ("docs: exit code 2, expected 0",)  # an optional one only warns
    assert "3 tests failed" in gate.report()
    assert [r.name for r in gate.results] == ["test_command", "lint", "docs"]
    fake.plays = {**fake.plays, "pytest -q": (0, "")}
    assert run_gate(path, tmp_path, launcher=fake.launcher).passed


def test_role_criteria_apply_by_mode(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "coder:\n  promise: BUILT\n  description: it builds\n"
        "  verification_method: external\n  verification_config: {command: build}\n"
        "reviewer:\n  promise: REVIEWED\n  description: reviewed\n",
    )
    fake = Commands({"build": (1, "")})
    out = "<promise>BUILT</promise>"
    implement = run_gate(path, tmp_path, mode="IMPLEMENT", output=out, launcher=fake.launcher)
    assert implement.reasons == ("coder: exit code 1, expected 0",)
    no_promise = run_gate(path, tmp_path, mode="IMPLEMENT", output="done", launcher=fake.launcher)
    assert [r.name for r in no_promise.failed] == ["coder.promise"]
    assert fake.lines() == ["build"]  # without its promise the role's command is not run
    out = "<promise>REVIEWED</promise>"
    review = run_gate(path, tmp_path, mode="REVIEW", output=out, launcher=fake.launcher)
    assert review.passed


def test_independent_external_checks_run_in_parallel(tmp_path: Path) -> None:
    # Each check waits (bounded) until the other has started: only a parallel run passes.
    both = threading.Barrier(2, timeout=30)

    def meet(request: ProcessRequest) -> tuple[int, str]:
        both.wait()
        return (0, "")

    path = spec(
        tmp_path,
        "parallel_checks: true\nchecks:\n"
        "  - {name: a, method: external, config: {command: a}}\n"
        "  - {name: b, method: external, config: {command: b}}\n",
    )
    gate = run_gate(path, tmp_path, launcher=Commands({"a": meet, "b": meet}).launcher)
    assert gate.passed, gate.reasons


def test_check_results_are_reported_as_they_finish(tmp_path: Path) -> None:
    seen: list[str] = []
    path = spec(tmp_path, "test_command: 'true'\n")
    fake = Commands({"true": (0, "")})
    run_gate(
        path,
        tmp_path,
        on_result=lambda r: seen.append(json.dumps(r.to_json())),
        launcher=fake.launcher,
    )
    assert json.loads(seen[0])["name"] == "test_command"
