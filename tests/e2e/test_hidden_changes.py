"""Agents that hide their edits (tests/fakes/hider.py) through the real CLI: ralph never reports
them verified, and honest work next to a person's own git settings still is.

A hiding agent edits the project every rotation and says DONE: when ralph sees each edit, no
DONE counts more than once in a row (1/3) and the run ends without "verified"; a trick on the
ignore rules also has its DONEs refused until a person accepts the rules.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import Project, Result

HIDER = Path(__file__).parents[1] / "fakes" / "hider.py"
SPEC = "# app\n\n- [ ] app.py holds the value\n"
FLAG_TRICKS = [
    *("skip-worktree", "assume-unchanged", "settings", "filter", "amend", "branch", "stash"),
]
RULE_TRICKS = ["rm-cached", "gitignore", "ralphignore", "excludes-file"]

pytestmark = pytest.mark.slow


def start(p: Project) -> None:
    p.write({"specs/app.spec.md": SPEC, "app.py": "VALUE = 0\n", ".gitignore": ".ralph/\n"})
    p.commit_all()


def run(p: Project, trick: str, *extra: str) -> Result:
    junit = p.root.parent / f"{p.root.name}-junit.xml"
    cmd = f"{sys.executable} {HIDER} {trick}"
    return p.run("run", "--agent-command", cmd, "--junit", str(junit), *extra)


def assert_not_verified(p: Project, res: Result) -> None:
    """Every view of the run says it is not verified."""
    assert res.exit_code in (3, 5), res  # the iteration limit, or the breaker after refusals
    assert "every spec verified" not in res.stdout
    row = p.state()["specs"][0]
    assert row["done_count"] < 3, res
    status = json.loads(p.run("status", "--json").stdout)
    assert status["complete"] is False
    assert all(s["done_count"] < 3 for s in status["specs"])
    junit = ET.parse(p.root.parent / f"{p.root.name}-junit.xml").getroot()
    cases = list(junit.iter("testcase"))
    assert cases and all(case.find("failure") is not None for case in cases)


@pytest.mark.parametrize("trick", FLAG_TRICKS)
def test_an_edit_hidden_from_git_still_counts(git_project: Project, trick: str) -> None:
    p = git_project
    start(p)
    res = run(p, trick, "-n", "5")
    assert_not_verified(p, res)
    ends = p.rotation_ends()
    assert len(ends) == 5
    # every rotation changed a file, and ralph saw it: each DONE counts as the first
    assert all(e["files_changed"] >= 1 for e in ends), ends
    assert p.state()["specs"][0]["done_count"] == 1


@pytest.mark.parametrize("trick", RULE_TRICKS)
def test_an_agent_rule_that_hides_files_is_refused(git_project: Project, trick: str) -> None:
    p = git_project
    start(p)
    res = run(p, trick, "-n", "2")  # two refusals: the third would open the breaker
    assert_not_verified(p, res)
    ends = p.rotation_ends()
    assert all(e["files_changed"] >= 1 for e in ends), ends  # the hidden file is compared
    assert [e["signal"] for e in ends] == ["REFUSED", "REFUSED"]
    assert "ralph accept" in res.stdout
    handoff = "".join(f.read_text() for f in (p.root / ".ralph/handoffs").iterdir())
    assert "ignore rules wait for a person" in handoff
    # nor does the rule take effect at the next run
    res = run(p, trick, "-n", "3")
    assert_not_verified(p, res)
    assert "the ignore rules differ from the ones a person set" in res.stdout
    later = p.rotation_ends()[2:]
    assert later and all(e["files_changed"] >= 1 and e["signal"] == "REFUSED" for e in later)


def test_a_submodule_file_flagged_inside_the_submodule_still_counts(
    git_project: Project, tmp_path: Path
) -> None:
    lib = tmp_path / "sublib"
    lib.mkdir()
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "lib"]):
        (lib / "x.py").write_text("VALUE = 0\n")
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=lib, check=True
        )
    p = git_project
    start(p)
    p.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    p.git("config", "-f", ".gitmodules", "submodule.lib.ignore", "all")
    p.commit_all("submodule")
    res = run(p, "submodule", "-n", "4")
    assert_not_verified(p, res)
    assert all(e["files_changed"] >= 1 for e in p.rotation_ends())


def test_scaffolding_an_agent_ignores_costs_nothing_and_is_not_refused(
    git_project: Project,
) -> None:
    p = git_project
    start(p)
    res = run(p, "honest-scaffold", "-n", "6")
    assert res.exit_code == 0, res
    assert "every spec verified" in res.stdout
    signals = [e["signal"] for e in p.rotation_ends()]
    assert signals == ["DONE", "DONE", "DONE"]
    assert [e["files_changed"] for e in p.rotation_ends()] == [1, 0, 0]  # .gitignore only


def test_a_persons_own_skip_worktree_file_keeps_working(git_project: Project) -> None:
    """The person flagged local.cfg before the run: a tool rewriting it is not a change."""
    p = git_project
    start(p)
    p.write({"local.cfg": "mine\n"})
    p.commit_all("local config")
    p.git("update-index", "--skip-worktree", "local.cfg")
    p.write({"local.cfg": "my own local setting\n"})
    res = run(p, "honest-local", "-n", "6")
    assert res.exit_code == 0, res
    assert "every spec verified" in res.stdout
    assert [e["files_changed"] for e in p.rotation_ends()] == [0, 0, 0]


def test_a_flag_an_agent_set_is_not_a_persons_at_the_next_run(git_project: Project) -> None:
    p = git_project
    start(p)
    assert_not_verified(p, run(p, "skip-worktree", "-n", "3"))
    # a new run: the agent goes on editing the file it flagged in the last one
    res = run(p, "skip-worktree", "-n", "4")
    assert_not_verified(p, res)
    assert all(e["files_changed"] >= 1 for e in p.rotation_ends())


def test_a_person_accepts_the_rules_with_ralph_accept(git_project: Project) -> None:
    p = git_project
    start(p)
    assert_not_verified(p, run(p, "gitignore", "-n", "2"))
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5, shown
    assert "[ignore rules]" in shown.stdout
    assert "lib/.gitignore: `*` was added" in shown.stdout  # what is being accepted
    assert p.run("accept").exit_code == 5  # no terminal, no --yes: nothing accepted
    assert "[ignore rules]" in p.run("accept", "--dry-run").stdout
    done = p.run("accept", "--yes")
    assert done.exit_code == 0, done
    assert p.run("accept", "--dry-run").exit_code == 0
    # the rule is the person's now: what it ignores is left out, and DONEs count again
    (p.root / "specs/app.spec.md").write_text(SPEC + "- [ ] accepted\n")
    p.run("reset")  # the breaker the refusals opened starts over
    res = run(p, "gitignore", "-n", "6")
    assert res.exit_code == 0, res
    assert "every spec verified" in res.stdout
