"""commands/report.py: `ralph report --html PATH [--run ID]`, as a person meets it.

What the page shows is tests/ui/test_htmlreport.py's."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.disk.workspace import Workspace
from tests.conftest import Project
from tests.sample_records import lanes_run

SPEC = "# goal\n- [x] the work\n"


def test_a_report_without_a_run_is_one_line(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("report", "--html", str(tmp_path / "r.html"))
    assert res.exit_code == 1
    assert res.stderr.startswith("error: cannot write the report") and "no run" in res.stderr
    assert "Traceback" not in res.stderr
    res = git_project.run("report")
    assert res.exit_code == 2 and "--html" in res.stderr


def test_the_latest_run_is_written_and_said(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": SPEC})
    ws = Workspace(git_project.root)
    ws.worklog.parent.mkdir(parents=True, exist_ok=True)
    ws.worklog.write_text("".join(json.dumps(r) + "\n" for r in lanes_run()))
    page = tmp_path / "r.html"
    res = git_project.run("report", "--html", str(page))
    assert res.exit_code == 0, res
    assert res.stdout.strip() == f"wrote {page}"
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_an_archived_run_that_does_not_exist_is_a_usage_error(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("report", "--html", str(tmp_path / "r.html"), "--run", "nope")
    assert res.exit_code == 2, res
    assert "nope" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "r.html").exists()
