"""The run is never verified with fewer or weaker specs than a person wrote: a spec deleted or
renamed by the agent, or another spec's front matter it changed, waits for a person (`ralph
accept`); every DONE is refused meanwhile. What a person changes between runs is theirs."""

from __future__ import annotations

import json

from tests.conftest import Project

DONE = [{"signal": "DONE"}]


CHECKED = "---\ntest_command: 'exit 1'\n---\n# b\n"


UNCHECKED = "# b\n"


def _counts(p: Project) -> list[int]:
    status = json.loads(p.run("status", "--json").stdout)
    return [s["done_count"] for s in status["specs"]]


def _specs(p: Project) -> None:
    p.write({"specs/a.spec.md": "# a\n", "specs/b.spec.md": CHECKED})
    p.commit_all()


def test_an_agent_that_deletes_another_spec_is_never_verified(git_project: Project) -> None:
    p = git_project
    _specs(p)
    script = p.fake({"specs/a.spec.md": [{"delete": ["specs/b.spec.md"], **DONE[0]}, *DONE]})
    res = p.run("run", *script, "-n", "1")
    assert res.exit_code == 3, res  # the DONE refused: not verified
    assert "specs/b.spec.md was removed or renamed during a run" in res.stdout
    assert _counts(p) == [0]  # spec a; b is gone from the matrix, not from the record
    # the next run still knows: the deletion was the agent's, not a person's
    again = p.run("run", *script, "-n", "1")
    assert again.exit_code == 3, again
    assert "the specs a person wrote wait for a person: specs/b.spec.md was removed" in again.stdout
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5, shown
    assert "[specs] specs/b.spec.md was removed or renamed during a run" in shown.stdout
    assert p.run("accept", "--yes").exit_code == 0
    assert p.run("run", *script).exit_code == 0  # accepted: the person's spec set is one spec


def test_renaming_a_spec_to_shed_its_checks_is_refused(git_project: Project) -> None:
    p = git_project
    _specs(p)
    step = {"run": "git mv specs/b.spec.md specs/b-notes.md", "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step, *DONE]}), "-n", "2")
    assert res.exit_code == 3, res
    assert "specs/b.spec.md was removed or renamed during a run" in res.stdout


def test_weakening_another_specs_front_matter_is_refused(git_project: Project) -> None:
    p = git_project
    _specs(p)
    step = {"write": {"specs/b.spec.md": UNCHECKED}, "signal": "DONE"}
    script = p.fake({"specs/a.spec.md": [step, *DONE], "*": DONE})
    res = p.run("run", *script, "-n", "2")
    assert res.exit_code == 3, res
    assert "specs/b.spec.md: its front matter (its checks) was changed during a run" in res.stdout
    # a person restoring the spec (between runs) ends the wait; its check now decides
    p.write({"specs/b.spec.md": CHECKED})
    res = p.run("run", *script, "-n", "4")
    assert "wait for a person" not in res.stdout, res
    assert res.exit_code in (3, 5), res  # spec b's check fails: never verified either way


def test_a_person_deleting_or_editing_specs_between_runs_is_taken(git_project: Project) -> None:
    p = git_project
    _specs(p)
    p.write({"specs/b.spec.md": CHECKED.replace("exit 1", "exit 0")})
    assert p.run("run", *p.fake({"*": DONE}), "-n", "1").exit_code == 3
    # the person, between runs: drops spec b, weakens nothing else
    (p.root / "specs/b.spec.md").unlink()
    res = p.run("run", *p.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert "wait for a person" not in res.stdout
    p.write({"specs/c.spec.md": "---\ntest_command: 'exit 0'\n---\n# c\n"})
    assert p.run("run", *p.fake({"*": DONE})).exit_code == 0
