"""`ralph run --spec PATH`: a run limited to the specs named, the others left as they are."""

from __future__ import annotations

from tests.conftest import Project

SPECS = {
    "specs/a.spec.md": "# a\n- [ ] a\n",
    "specs/b.spec.md": "# b\n- [ ] b\n",
    "specs/c.spec.md": "# c\n- [ ] c\n",
}


def test_only_the_named_spec_runs_and_the_others_keep_their_counters(
    git_project: Project,
) -> None:
    git_project.write(SPECS)
    cmd = git_project.fake({"*": [{"write": {"x.txt": "1"}, "signal": "DONE"}, {"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "--spec", "specs/b.spec.md")
    assert res.exit_code == 0, res
    assert {c["spec"] for c in git_project.calls()} == {"specs/b.spec.md"}
    assert git_project.counts() == {
        "specs/a.spec.md": 0,
        "specs/b.spec.md": 3,
        "specs/c.spec.md": 0,
    }
    assert git_project.verify_calls() == []  # the final verification waits for every spec
    assert "selected specs are verified" in res.stdout
    assert "2 other spec(s) still need work" in res.stdout


def test_several_specs_and_paths_as_typed(git_project: Project) -> None:
    git_project.write(SPECS)
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    spec_a = str(git_project.root / "specs" / "a.spec.md")  # absolute
    res = git_project.run("run", *cmd, "--spec", spec_a, "--spec", "./specs/c.spec.md")
    assert res.exit_code == 0, res
    assert {c["spec"] for c in git_project.calls()} == {"specs/a.spec.md", "specs/c.spec.md"}
    assert git_project.counts()["specs/b.spec.md"] == 0


def test_every_spec_selected_is_a_normal_run_with_its_final_verification(
    git_project: Project,
) -> None:
    git_project.write({"specs/a.spec.md": "# a\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "--spec", "specs/a.spec.md")
    assert res.exit_code == 0, res
    assert len(git_project.verify_calls()) == 1
    assert "every spec verified" in res.stdout


def test_a_path_that_is_not_a_spec_is_one_clear_line(git_project: Project) -> None:
    git_project.write(SPECS)
    git_project.write({"notes.md": "x"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    for bad in ("specs/nope.spec.md", "notes.md"):
        res = git_project.run("run", *cmd, "--spec", bad)
        assert res.exit_code == 2, res
        assert f"--spec {bad}: not a spec of" in res.stderr
        assert "specs/a.spec.md" in res.stderr  # what to give instead
        assert "Traceback" not in res.stderr
    assert git_project.calls() == []
    assert not (git_project.root / ".ralph" / "state.json").exists()
