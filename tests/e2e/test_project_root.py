"""Which project a command is about, from anywhere inside it, and `ralph init`'s untouched
template, through the real command line (`python -m ralph`, from the folder a user is in)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.rules.counts.spec import PROMPT_TEMPLATE
from tests.conftest import Project, Result

DONE = [{"signal": "DONE"}]


def ralph(project: Project, cwd: Path, *args: str) -> Result:
    """`ralph ARGS` as a user types it in `cwd`."""
    proc = subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr, project)


def spec_paths(res: Result) -> list[str]:
    assert res.exit_code == 0, res
    return [s["path"] for s in json.loads(res.stdout)["specs"]]


@pytest.mark.slow
def test_every_command_finds_the_project_from_a_subfolder(git_project: Project) -> None:
    git_project.write({"specs/api.spec.md": "# api\n", "pkg/deep/code.py": "x = 1\n"})
    deep = git_project.root / "pkg" / "deep"
    # before any .ralph/: the git top level is the project
    assert spec_paths(ralph(git_project, deep, "status", "--json")) == ["specs/api.spec.md"]
    res = ralph(git_project, deep, "run", "--agent-command", git_project.script({"*": DONE}))
    assert res.exit_code == 0, res
    assert (git_project.root / ".ralph" / "state.json").is_file()
    assert not (deep / ".ralph").exists()
    # the fast path and Typer's path alike
    assert spec_paths(ralph(git_project, deep, "status", "--json")) == ["specs/api.spec.md"]
    assert "specs/api.spec.md  3/3" in ralph(git_project, deep, "status", "--log", "1").stdout
    history = ralph(git_project, deep, "history")
    assert history.exit_code == 0 and "specs/api.spec.md" in history.stdout, history


@pytest.mark.slow
def test_dash_c_works_before_the_command_as_after_it(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"specs/api.spec.md": "# api\n", "pkg/code.py": "x = 1\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    pkg = str(git_project.root / "pkg")
    for args in (("-C", pkg, "status", "--json"), ("status", "--json", "-C", pkg)):
        assert spec_paths(ralph(git_project, elsewhere, *args)) == ["specs/api.spec.md"], args
    typer_path: list[list[str]] = [  # --log: Typer's path, not the fast one
        ["--project", pkg, "status", "--log", "1"],
        [f"--project={pkg}", "status", "--log", "1"],
    ]
    for given in typer_path:
        res = ralph(git_project, elsewhere, *given)
        assert res.exit_code == 0 and "specs/api.spec.md" in res.stdout, (given, res)
    agent = git_project.script({"*": DONE})
    res = ralph(git_project, elsewhere, "-C", pkg, "run", "--agent-command", agent, "-n", "3")
    assert res.exit_code == 0, res
    assert git_project.counts() == {"specs/api.spec.md": 3}


def test_init_in_a_subfolder_of_a_project_is_refused_unless_nested(project: Project) -> None:
    project.write({"specs/api.spec.md": "# api\n"})
    assert ralph(project, project.root, "init").exit_code == 0
    sub = project.root / "pkg"
    sub.mkdir()
    res = ralph(project, sub, "init")
    assert res.exit_code == 2, res
    assert res.stderr.splitlines()[0] == (
        f"error: {sub} is inside the ralph project {project.root}; ralph init would make a "
        "second project here"
    )
    assert "ralph init --nested" in res.stderr
    assert not (sub / ".ralph").exists() and not (sub / "PROMPT.md").exists()
    # asked for: a second project inside the first
    res = ralph(project, sub, "init", "--nested")
    assert res.exit_code == 0, res
    assert (sub / ".ralph" / "state.json").is_file()
    # at the project's own root: no refusal
    again = ralph(project, project.root, "init", "--force")
    assert again.exit_code == 0 and "error" not in again.stderr, again


def test_the_untouched_template_is_not_run_and_the_run_says_so(project: Project) -> None:
    assert project.run("init").exit_code == 0
    assert (project.root / "PROMPT.md").read_text() == PROMPT_TEMPLATE
    project.write({"specs/a.spec.md": "# a\n"})
    res = project.run("run", *project.fake({"*": DONE}), "-n", "4")
    assert res.exit_code == 0, res
    assert {c["spec"] for c in project.all_calls()} == {"specs/a.spec.md"}
    notes = [line for line in res.stdout.splitlines() if "PROMPT.md" in line]
    assert len(notes) == 1, res
    assert notes[0].endswith(
        "warning: PROMPT.md is still the template `ralph init` wrote, so it is not run: "
        "describe what you want built there, or delete it"
    )
    status = json.loads(project.run("status", "--json").stdout)
    assert [s["path"] for s in status["specs"]] == ["specs/a.spec.md"]
    assert status["complete"] is True
    # once edited, it is a spec like any other
    project.write({"PROMPT.md": PROMPT_TEMPLATE.replace("Describe what", "Build what")})
    assert project.run("run", *project.fake({"*": DONE}), "-n", "6").exit_code == 0
    assert "PROMPT.md" in {c["spec"] for c in project.all_calls()}


def test_a_run_with_only_the_template_starts_no_agent(project: Project) -> None:
    assert project.run("init").exit_code == 0
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 1, res
    assert res.stderr.splitlines() == [
        "error: PROMPT.md is still the template `ralph init` wrote: nothing to build yet",
        "hint: describe what you want built in PROMPT.md (or add specs/<name>.spec.md), "
        "then run again",
    ]
    assert project.all_calls() == []
