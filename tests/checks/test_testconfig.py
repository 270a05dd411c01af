"""checks/testconfig.py: the test configuration as a person last left it."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.testconfig import ConfigAcceptor, ConfigGuard
from ralph.rules.counts.state import State

INI = "[pytest]\naddopts = -q\n"


def project(tmp_path: Path) -> tuple[Path, Path]:
    root, store = tmp_path / "p", tmp_path / "store"
    (root / "tests").mkdir(parents=True)
    store.mkdir()
    (root / "pytest.ini").write_text(INI)
    (root / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    (root / "run_tests.sh").write_text("pytest\n")
    (root / "app.py").write_text("x = 1\n")
    return root, store


def test_the_configuration_and_the_scripts_the_commands_name_are_recorded(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = ConfigGuard(root, store, commands=["sh run_tests.sh"])
    assert set(guard.scan()) == {"pytest.ini", "run_tests.sh"}  # no test file, no code
    assert guard.start(take=True) == [] and guard.changed() == {}


def test_a_change_that_steers_the_tests_differs_until_accepted(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = ConfigGuard(root, store)
    guard.start(take=True)
    (root / "pytest.ini").write_text(INI + "    --deselect tests/test_a.py::test_a\n")
    assert guard.changed() == {"pytest.ini": (INI, (root / "pytest.ini").read_text())}
    scope = Scope(root, store)
    items = ConfigAcceptor().pending(scope, State())
    assert len(items) == 1 and "pytest.ini" in items[0].summary
    ConfigAcceptor().accept(scope, State(), items)
    assert ConfigAcceptor().pending(scope, State()) == [] and guard.changed() == {}


def test_an_edit_between_runs_is_taken_unless_the_last_run_was_killed(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    ConfigGuard(root, store).start(take=True)
    ConfigGuard(root, store).finish()
    (root / "pytest.ini").write_text(INI + "    -x\n")
    assert ConfigGuard(root, store).start(take=False) == ["pytest.ini"]  # killed: it waits
    assert ConfigGuard(root, store).changed()
    (root / "pytest.ini").write_text(INI + "    -v\n")
    assert ConfigGuard(root, store).start(take=True) == ["pytest.ini"]  # a person's: taken
    assert ConfigGuard(root, store).changed() == {}


def test_a_rotation_that_may_change_it_moves_the_baseline(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = ConfigGuard(root, store)
    guard.start(take=True)
    (root / "pytest.ini").write_text(INI + "    -x\n")
    guard.after_rotation(["pytest.ini", "app.py"], may_change=False)
    assert guard.changed()
    guard.after_rotation(["pytest.ini"], may_change=True)
    assert guard.changed() == {}
