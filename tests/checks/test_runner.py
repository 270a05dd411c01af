"""Completion checks (ralph.checks): every method of the completion-criteria seed with its
configuration keys and error handling, run for real (commands through run_process, the judge
through CommandAgent.run)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
