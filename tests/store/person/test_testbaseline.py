"""store/person/testbaseline.py: the tests as a person last left them, kept across runs in the
private store."""

from __future__ import annotations

from ralph.rules.evidence.testfiles import DEFAULT_GLOBS
from ralph.store.person.testbaseline import person_ignored, scan
from tests.conftest import Project


def test_no_folder_is_exempt_by_its_name_but_ignored_ones_and_environments_are(
    git_project: Project,
) -> None:
    p = git_project
    test = "def test_x():\n    assert True\n"
    p.write(
        {
            ".gitignore": "out/\n",
            "dist/test_a.py": test,
            "build/test_b.py": test,
            "vendor/lib/test_c.py": test,
            "out/test_d.py": test,  # ignored by the person's rules
            "env/pyvenv.cfg": "home = /usr\n",  # a virtualenv
            "env/lib/test_e.py": test,
            "node_modules/x/test_f.py": test,
        }
    )
    found = set(scan(p.root, DEFAULT_GLOBS, person_ignored(p.root)))
    assert found == {"dist/test_a.py", "build/test_b.py", "vendor/lib/test_c.py"}


def test_what_a_rotation_changed_is_seen_and_taken_only_when_it_may_change(
    project: Project,
) -> None:
    """`observe`, the one step both guards take after a rotation: the changed files as they
    are now are seen; the baseline moves only with `may_change` (control: without it, it
    stays); a file gone is seen gone."""
    from ralph.store.person.testbaseline import TestStore, observe

    project.write({"tests/test_a.py": "one\n"})
    store = TestStore(project.root / ".ralph")
    observe(store, project.root, ["tests/test_a.py"], may_change=False)
    assert "tests/test_a.py" in store.seen() and store.baseline() == {}
    observe(store, project.root, ["tests/test_a.py"], may_change=True)
    assert store.baseline_texts() == {"tests/test_a.py": "one\n"}
    (project.root / "tests" / "test_a.py").unlink()
    observe(store, project.root, ["tests/test_a.py"], may_change=True)
    assert "tests/test_a.py" not in store.seen() and store.baseline() == {}
    observe(store, project.root, [], may_change=True)  # nothing changed: nothing written
