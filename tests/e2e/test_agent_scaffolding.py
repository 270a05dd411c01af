"""Agents' own scaffolding (rules/agents/agentfiles.py) is never a reason to refuse: aider's
`.aider*`
rule and files, the CLIs' local settings folders. Stated once, per agent; its footprint says
the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project

CHECK = "python3 -c 'import app; assert app.VALUE == 1'"


SPEC = f"---\ntest_command: {CHECK}\n---\n# app\nSet VALUE to 1.\n"


def aider_like(p: Project) -> str:
    """What aider does in a git repository, as a program: on its first run it adds `.aider*` to
    `.gitignore`, and every run it appends to its chat history and rewrites its tags cache."""
    own = (
        "echo turn >> .aider.chat.history.md && echo q >> .aider.input.history && "
        "mkdir -p .aider.tags.cache.v4 && date +%s%N > .aider.tags.cache.v4/cache.db"
    )
    first = {
        "run": f"grep -qx '.aider\\*' .gitignore || echo '.aider*' >> .gitignore; {own}",
        "write": {"app.py": "VALUE = 1\n"},
        "signal": "DONE",
    }
    return p.script({"*": [first, {"run": own, "signal": "DONE"}]})


def test_aider_first_run_reaches_verified_unattended(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": SPEC, "app.py": "VALUE = 0\n", ".gitignore": ".ralph/\n"})
    p.commit_all()
    res = p.run("run", "--agent-command", aider_like(p), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert ".aider*" in (p.root / ".gitignore").read_text()
    assert "wait for a person" not in res.stdout and "hidden" not in res.stdout
    # the agent's own files changed every rotation; the reviews still saw nothing changed
    assert [e["files_changed"] for e in p.rotation_ends()][1:] == [0, 0]


@pytest.mark.slow
def test_the_real_aider_first_run_reaches_verified_unattended(
    git_project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aider itself (PyPI) in a git repository, against the mock LLM: its first run adds
    `.aider*` to `.gitignore` and writes its history and tags cache; ralph verifies."""
    from tests.e2e.test_agent_clis import need, put_on_path, ralph_yaml, setup_for

    need("aider")
    p = git_project
    reply = "I'll set it.\n\napp.py\n```\nVALUE = 1\n```\n\nDone. <ralph>DONE</ralph>"
    mock = mock_llm(
        {"all_requests_main": True, "step_by": "count", "steps": [{"text": reply}]}, p.root
    )
    setup = setup_for("aider", mock, tmp_path / "home", monkeypatch)
    # as a person runs it in a repository: git on (its .gitignore question answered yes by
    # --yes-always), no commits of its own
    setup.args = ["--no-auto-commits", *(a for a in setup.args if a != "--no-git")]
    setup.args = [a if a != "hello.txt" else "app.py" for a in setup.args]
    put_on_path(monkeypatch)
    p.write(
        {
            "PROMPT.md": SPEC,
            "app.py": "VALUE = 0\n",
            ".gitignore": ".ralph/\n",
            "ralph.yaml": ralph_yaml("aider", setup),
        }
    )
    p.commit_all()
    res = p.run_subprocess("run", "--plain", "-n", "6", timeout=600)
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert ".aider" in (p.root / ".gitignore").read_text()  # aider's own rule, taken as is
    assert (p.root / ".aider.chat.history.md").is_file()
    assert p.worklog("done_refused") == []
