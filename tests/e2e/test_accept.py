"""`ralph accept`: what an agent changed of the checks waits for a person; the command shows it
and accepts it (exit 0 when nothing waits any more, 5 when something still does)."""

from __future__ import annotations

from ralph.commands.accept import accept
from ralph.store.live.runlock import RunLock
from tests.conftest import Project

DONE = [{"signal": "DONE"}]


STRICT = "---\ntest_command: 'exit 1'\n---\n# goal\n"


WEAKER = "---\ntest_command: 'exit 0'\n---\n# goal\n"


def refused_once(p: Project, path: str = "PROMPT.md") -> tuple[str, str]:
    """A run whose agent swaps the spec's failing check for a passing one and says DONE."""
    script = p.fake({path: [{"write": {path: WEAKER}, "signal": "DONE"}, *DONE], "*": DONE})
    res = p.run("run", *script, "-n", "2")
    assert res.exit_code == 3, res
    assert "ralph accept" in res.stdout  # the refusal says what a person can do
    return script


def test_agent_front_matter_is_shown_then_accepted(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": STRICT})
    script = refused_once(p)
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5, shown
    assert "[front matter] PROMPT.md" in shown.stdout
    assert "test_command: 'exit 0'" in shown.stdout  # what is being accepted, line by line
    # no terminal to confirm on, no --yes: nothing is accepted
    unconfirmed = p.run("accept")
    assert unconfirmed.exit_code == 5
    assert "ralph accept --yes" in unconfirmed.stdout
    assert p.state()["specs"][0]["agent_front_matter"] is not None
    done = p.run("accept", "--yes")
    assert done.exit_code == 0, done
    assert "accepted 1 change" in done.stdout
    assert p.state()["specs"][0]["agent_front_matter"] is None
    assert p.run("accept", "--dry-run").exit_code == 0
    assert p.run("run", *script).exit_code == 0  # the accepted checks pass: verified


def test_spec_limits_what_is_accepted(git_project: Project) -> None:
    p = git_project
    p.write({"specs/a.spec.md": STRICT, "specs/b.spec.md": STRICT})
    step = [{"write": {"specs/a.spec.md": WEAKER, "specs/b.spec.md": WEAKER}, "signal": "DONE"}]
    assert p.run("run", *p.fake({"*": step}), "-n", "1").exit_code == 3
    # the first rotation (spec a) changed both files; b's own rotation did not run yet
    marks = {s["path"]: s["agent_front_matter"] for s in p.state()["specs"]}
    assert marks["specs/a.spec.md"] is not None
    res = p.run("accept", "--spec", "./specs/a.spec.md", "--yes")
    assert res.exit_code == 0, res
    assert "specs/a.spec.md" in res.stdout and "specs/b.spec.md" not in res.stdout
    assert p.state()["specs"][0]["agent_front_matter"] is None
    bad = p.run("accept", "--spec", "specs/nope.spec.md")
    assert bad.exit_code == 2
    assert "not a spec of" in bad.stderr and "specs/a.spec.md" in bad.stderr


def test_a_person_can_decline(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": STRICT})
    refused_once(p)
    asked: list[str] = []

    def no(question: str) -> bool:
        asked.append(question)
        return False

    assert accept(p.root, spec=None, yes=False, dry_run=False, confirm=no) == 5
    assert asked == ["Accept 1 change? [y/N] "]
    assert p.state()["specs"][0]["agent_front_matter"] is not None
    assert accept(p.root, spec=None, yes=False, dry_run=False, confirm=lambda q: True) == 0
    assert p.state()["specs"][0]["agent_front_matter"] is None


def test_refused_while_a_run_is_live(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": STRICT})
    refused_once(p)
    before = (p.root / ".ralph" / "state.json").read_bytes()
    with RunLock(p.root / ".ralph"):
        res = p.run("accept", "--yes")
        assert res.exit_code == 1
        assert "another ralph run is live" in res.stderr
        assert "hint: accept at its escalation" in res.stderr
        assert p.run("accept", "--dry-run").exit_code == 5  # looking is fine
    assert (p.root / ".ralph" / "state.json").read_bytes() == before
