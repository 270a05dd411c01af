"""ralph's own report files never count as the user's uncommitted work or as a change in the
project: keyed on what ralph wrote (`reports.json` in ralph's private store), not on the options
of the last run."""

from __future__ import annotations

import hashlib
import json

from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
DONE = [{"signal": "DONE"}]


def reported_project(project: Project) -> None:
    """Reports written by one run, then a run given no report option at all."""
    lanes_project(project, SPECS)
    agent = project.fake({"*": [{"signal": "CONTINUE"}]})
    res = project.run(
        "run",
        *agent,
        "--headless",
        "-n",
        "1",
        "--junit",
        "out/junit.xml",
        "--report-json",
        "out/run.json",
    )
    assert res.exit_code == 3, res
    assert project.run("run", *agent, "--headless", "-n", "1").exit_code == 3
    assert sorted(project.git("status", "--porcelain", "-uall").split()) == sorted(
        ["??", "??", "out/junit.xml", "out/run.json"]
    )


def test_reports_of_earlier_runs_do_not_block_parallel(project: Project) -> None:
    reported_project(project)
    res = project.run("run", *project.fake({"*": DONE}), "--headless", "--parallel", "2")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    assert "needs a clean work tree" not in res.stdout + res.stderr


def test_a_report_a_person_changed_is_their_work(project: Project) -> None:
    reported_project(project)
    (project.root / "out" / "junit.xml").write_text("<mine/>\n")
    res = project.run("run", *project.fake({"*": DONE}), "--headless", "--parallel", "2")
    assert res.exit_code == 2, res
    assert "needs a clean work tree to merge lanes into; uncommitted: out/junit.xml" in (
        res.stdout + res.stderr
    )
    assert "out/run.json" not in res.stdout + res.stderr  # still ralph's


def test_a_report_is_not_a_change_for_the_next_run(project: Project) -> None:
    lanes_project(project, SPECS)
    agent = project.fake({"*": DONE})
    res = project.run("run", *agent, "--headless", "--junit", "out/junit.xml")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    res = project.run("run", *agent, "--headless")  # no --junit: the file is still ralph's
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    assert len(project.calls()) == 6  # no rotation: nothing changed while ralph was away


def test_a_record_forged_in_ralph_dir_hides_no_change(project: Project) -> None:
    """The agent writes `.ralph/reports.json` naming a file it changed as ralph's own report:
    nothing reads it; the next run still sees the change made since the last one."""
    project.git("init", "-q", "-b", "main")
    project.write({"specs/a.spec.md": "# a\n", "src/core.py": "x = 1\n"})
    project.commit_all()
    done = project.fake({"*": DONE})
    assert project.run("run", *done, "--headless").exit_code == 0
    assert project.counts() == {"specs/a.spec.md": 3}
    # changed while no run was running (say, by an agent whose ralph was killed), and hidden
    (project.root / "src" / "core.py").write_text("x = 2\n")
    digest = hashlib.sha256(b"x = 2\n").hexdigest()
    forged = {"schema_version": 1, "reports": {"src/core.py": digest}}
    (project.root / ".ralph" / "reports.json").write_text(json.dumps(forged))
    res = project.run("run", *done, "--headless", "-n", "1")
    assert "files changed since the last run: src/core.py" in res.stdout, res
