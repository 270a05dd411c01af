"""run/tree.py: the project's tree around rotations, on a real git repository (git is the only
program it starts): what a rotation changed, the spec files under `.ralph/specs/` no snapshot
includes, what changed while ralph was not running, and the key of the check cache."""

from __future__ import annotations

from pathlib import Path

from ralph.rules.counts.state import SpecState, State
from ralph.run.tree import Tree, changed_since_last_run, hidden_spec_hashes
from ralph.store.repository.git import GitLock
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

FILES = {"specs/a.spec.md": "# a\n", "src/x.py": "x = 1\n"}
VERIFIED = State(specs=(SpecState("specs/a.spec.md", done_count=3),), iteration=4)


def tree(project: Project, own: tuple[str, ...] = ()) -> Tree:
    lanes_project(project, FILES)
    (project.root / ".ralph").mkdir()
    return Tree(project.root, project.root / ".ralph" / "snapshot.json", own, GitLock())


def test_a_rotation_s_changes_are_those_since_the_tree_before_it(project: Project) -> None:
    t = tree(project)
    before = t.begin()
    project.write({"src/x.py": "x = 2\n", "src/new.py": "y = 1\n"})
    taken = t.after(before)
    assert sorted(taken.changes.paths) == ["src/new.py", "src/x.py"]
    assert taken.failure is None and taken.after is not None
    assert sorted(t.changed()) == ["src/new.py", "src/x.py"]  # since the run began


def test_an_untouched_tree_has_no_changes(project: Project) -> None:
    t = tree(project)  # the control
    before = t.begin()
    assert t.after(before).changes.paths == ()
    assert t.changed() == ()


def test_a_spec_under_ralph_specs_counts_though_no_snapshot_includes_it(project: Project) -> None:
    t = tree(project)
    hidden = project.root / ".ralph" / "specs" / "h.spec.md"
    hidden.parent.mkdir(parents=True)
    hidden.write_text("# h\n")
    before = t.begin()
    t.hidden = hidden_spec_hashes(project.root)
    hidden.write_text("# h, edited\n")
    assert t.after(before).changes.paths == (".ralph/specs/h.spec.md",)


def test_the_check_cache_key_follows_the_tree(project: Project) -> None:
    t = tree(project)
    first = t.key()
    assert first is not None and t.key() == first  # the same tree, the same key
    project.write({"src/x.py": "x = 3\n"})
    assert t.key() != first


def test_a_project_ralph_never_ran_in_has_nothing_to_compare_with(project: Project) -> None:
    t = tree(project)
    now = t.begin()
    assert t.compare_with_last_run(State(), now) == (State(), (), ())


def test_a_missing_snapshot_after_a_rotation_sends_verified_specs_back(project: Project) -> None:
    t = tree(project)
    now = t.begin()  # no snapshot.json, but rotations ran: anything may have changed
    state, dropped, changed = t.compare_with_last_run(VERIFIED, now)
    assert (dropped, changed) == (("specs/a.spec.md",), None)
    assert state.specs[0].done_count == 2


def test_files_changed_while_ralph_was_away_send_verified_specs_back(project: Project) -> None:
    t = tree(project, own=("ralph.yaml",))
    t.save(t.begin(), {})
    project.write({"ralph.yaml": "agent: x\n"})  # ralph's own file: not a change of the work
    same, dropped, changed = t.compare_with_last_run(VERIFIED, t.take())
    assert (same, dropped, changed) == (VERIFIED, (), ())  # the control
    project.write({"src/x.py": "x = 9\n"})
    state, dropped, changed = t.compare_with_last_run(VERIFIED, t.take())
    assert (dropped, changed) == (("specs/a.spec.md",), ("src/x.py",))
    assert state.specs[0].done_count == 2


def test_the_snapshot_saved_keeps_the_hidden_specs(project: Project) -> None:
    t = tree(project)
    t.save(t.begin(), {".ralph/specs/h.spec.md": "abc"})
    assert t.hidden == {".ralph/specs/h.spec.md": "abc"}
    assert '"hidden_specs"' in Path(t.snapshot_file).read_text()


def test_the_warning_names_the_first_files_and_the_specs_sent_back() -> None:
    files = tuple(f"f{n}.py" for n in range(7))
    said = changed_since_last_run(files, ("specs/a.spec.md",))
    assert said.startswith("files changed since the last run: f0.py, f1.py, f2.py, f3.py, f4.py")
    assert "and 2 more" in said and said.endswith("review: specs/a.spec.md")
    unknown = changed_since_last_run(None, ("specs/a.spec.md",))
    assert unknown.startswith("the last run's snapshot is missing or unreadable")
