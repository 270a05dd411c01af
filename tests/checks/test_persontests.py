"""What the second room of a DONE holds instead of the tree's files (checks/persontests.py),
and the test configuration recorded beside the tests (checks/testconfig.py): on a real tree
and ralph's real private store, without a run."""

from __future__ import annotations

from pathlib import Path

from ralph.checks import testguard
from ralph.checks.persontests import person_overlay
from tests.conftest import Project

CALC = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
TEST = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"
PYPROJECT = '[project]\nname = "calc"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
COMMAND = "python -m pytest"


def started(
    p: Project, files: dict[str, str] | None = None, commands: tuple[str, ...] = ()
) -> testguard.TestGuard:
    p.write(
        files
        or {
            "calc.py": CALC,
            "tests/__init__.py": "",
            "tests/test_calc.py": TEST,
            "tests/conftest.py": "",
            "pytest.ini": "[pytest]\naddopts = -q\n",
            "pyproject.toml": PYPROJECT,
            "Makefile": "test:\n\tpython -m pytest\n",
        }
    )
    guard = testguard.TestGuard(p.root, p.root / ".ralph", None, commands)
    guard.start()
    return guard


def overlay(
    p: Project, guard: testguard.TestGuard, commands: tuple[str, ...] = (COMMAND,)
) -> dict[str, bytes | None]:
    return person_overlay(p.root, guard, commands)


def test_nothing_changed_means_no_second_run(project: Project) -> None:
    guard = started(project)
    assert overlay(project, guard) == {}
    project.write({"calc.py": CALC.replace(" + 1", "")})  # the agent fixed the code
    assert overlay(project, guard) == {}


def test_lines_added_to_a_test_are_gone(project: Project) -> None:
    guard = started(project)
    weak = TEST.replace("def test_mean():\n", "def test_mean():\n    return\n")
    weak += "\n\ndef mean(xs):\n    return 2\n"
    project.write({"tests/test_calc.py": weak})
    assert overlay(project, guard) == {"tests/test_calc.py": TEST.encode()}


def test_a_renamed_test_runs_under_its_baseline_name(project: Project) -> None:
    guard = started(project)
    (project.root / "tests/test_calc.py").rename(project.root / "tests/test_mean.py")
    assert overlay(project, guard) == {
        "tests/test_calc.py": TEST.encode(),
        "tests/test_mean.py": None,
    }


def test_new_tests_and_configuration_are_left_out(project: Project) -> None:
    guard = started(project)
    project.write(
        {
            "tests/test_more.py": "def test_more():\n    assert True\n",
            "tests/sub/conftest.py": "",
            "tests/sub/__init__.py": "",
            "tests/sub/test_deep.py": "",
            "sub/pytest.ini": "[pytest]\n",
            "tox.ini": "[tox]\n",
            "vendor/test_hidden.py": "",
            "dist/conftest.py": "",
            ".env": "PYTEST_ADDOPTS=-k nothing\n",
            "calc_helpers.py": "",  # code is the agent's
            "pkg/__init__.py": "",  # a package of code too
            "pkg/core.py": "",
        }
    )
    assert overlay(project, guard) == dict.fromkeys(
        (
            "tests/test_more.py",
            "tests/sub/conftest.py",
            "tests/sub/__init__.py",
            "tests/sub/test_deep.py",
            "sub/pytest.ini",
            "tox.ini",
            "vendor/test_hidden.py",
            "dist/conftest.py",
            ".env",
        )
    )


def test_the_configuration_is_the_persons(project: Project) -> None:
    guard = started(project)
    project.write(
        {
            "pytest.ini": "[pytest]\naddopts = -q --deselect tests/test_calc.py::test_mean\n",
            "tests/conftest.py": "def pytest_collection_modifyitems(items):\n    items.clear()\n",
            "tests/__init__.py": "import calc\ncalc.mean = lambda xs: 2\n",
            "Makefile": "test:\n\techo ok\n",
            "pyproject.toml": PYPROJECT.replace('"-q"', '"-q -k nothing"').replace(
                'name = "calc"', 'name = "calc"\ndependencies = ["numpy"]'
            ),
        }
    )
    assert overlay(project, guard) == {
        "pytest.ini": b"[pytest]\naddopts = -q\n",
        "tests/conftest.py": b"",
        "tests/__init__.py": b"",
        "Makefile": b"test:\n\tpython -m pytest\n",
        "pyproject.toml": PYPROJECT.replace(
            'name = "calc"', 'name = "calc"\ndependencies = ["numpy"]'
        ).encode(),
    }


def test_a_dependency_added_alone_needs_no_second_run(project: Project) -> None:
    guard = started(project)
    project.write({"pyproject.toml": PYPROJECT.replace("[tool", 'dependencies = ["x"]\n\n[tool')})
    assert overlay(project, guard) == {}


def test_deleted_configuration_comes_back(project: Project) -> None:
    guard = started(project)
    (project.root / "pytest.ini").unlink()
    (project.root / "pyproject.toml").unlink()
    assert overlay(project, guard) == {
        "pytest.ini": b"[pytest]\naddopts = -q\n",
        "pyproject.toml": PYPROJECT.encode(),
    }


def test_a_test_turned_into_a_link_is_put_back(project: Project, tmp_path: Path) -> None:
    guard = started(project)
    (tmp_path / "elsewhere.py").write_text("def test_mean():\n    pass\n")
    (project.root / "tests/test_calc.py").unlink()
    (project.root / "tests/test_calc.py").symlink_to(tmp_path / "elsewhere.py")
    (project.root / "conftest.py").symlink_to(tmp_path / "elsewhere.py")
    assert overlay(project, guard) == {"tests/test_calc.py": TEST.encode(), "conftest.py": None}


def test_crlf_bytes_are_the_persons(project: Project) -> None:
    crlf = TEST.replace("\n", "\r\n")
    guard = started(project, {"calc.py": CALC, "tests/test_calc.py": crlf})
    project.write({"tests/test_calc.py": crlf + "\r\ndef test_x():\r\n    pass\r\n"})
    assert overlay(project, guard) == {"tests/test_calc.py": crlf.encode()}


def test_the_runner_script_is_the_persons_and_a_new_one_is_left_out(project: Project) -> None:
    command = "./run_tests.sh"
    files = {"calc.py": CALC, "tests/test_calc.py": TEST, "run_tests.sh": "python -m pytest\n"}
    guard = started(project, files, (command,))
    project.write({"run_tests.sh": "exit 0\n", "ci/other.sh": "exit 0\n"})
    assert overlay(project, guard, (command, "sh ci/other.sh")) == {
        "run_tests.sh": b"python -m pytest\n",
        "ci/other.sh": None,
    }


def test_a_persons_edit_between_runs_is_the_baseline(project: Project) -> None:
    guard = started(project)
    guard.finish()
    project.write({"pytest.ini": "[pytest]\naddopts = -q -x\n", "tests/test_calc.py": TEST + "\n"})
    guard = testguard.TestGuard(project.root, project.root / ".ralph")
    edited, taken = guard.start()
    assert taken and edited == ["pytest.ini", "tests/test_calc.py"]
    assert overlay(project, guard) == {}


def test_after_an_unclean_end_nothing_is_taken(project: Project) -> None:
    guard = started(project)  # never finished: killed
    project.write({"pytest.ini": "[pytest]\naddopts = --collect-only\n"})
    guard = testguard.TestGuard(project.root, project.root / ".ralph")
    edited, taken = guard.start()
    assert not taken and edited == ["pytest.ini"]
    assert overlay(project, guard) == {"pytest.ini": b"[pytest]\naddopts = -q\n"}


def test_a_spec_that_lets_its_tests_change_moves_the_configuration_too(project: Project) -> None:
    guard = started(project)
    project.write({"pytest.ini": "[pytest]\naddopts = -q -x\n"})
    guard.after_rotation(["pytest.ini"], may_change=True)
    assert overlay(project, guard) == {}
    project.write({"pytest.ini": "[pytest]\naddopts = --collect-only\n"})
    guard.after_rotation(["pytest.ini"], may_change=False)
    assert overlay(project, guard) == {"pytest.ini": b"[pytest]\naddopts = -q -x\n"}


def test_a_persons_env_is_configuration_ignored_or_not(git_project: Project) -> None:
    p = git_project
    p.write({".gitignore": "secrets/.env\n", "secrets/.env": "TOKEN=1\n", ".env": "A=1\n"})
    p.write({"calc.py": CALC, "tests/test_calc.py": TEST})
    p.commit_all()
    guard = testguard.TestGuard(p.root, p.root / ".ralph")
    guard.start()
    assert set(guard.config.store.baseline()) == {".env", "secrets/.env"}
    assert overlay(p, guard) == {}  # the person's: in room B as in room A
    p.write({".env": "PYTEST_ADDOPTS=--collect-only\n", "tests/.env": "A=2\n"})
    assert overlay(p, guard) == {".env": b"A=1\n", "tests/.env": None}


def test_a_helper_the_tests_import_is_the_persons(project: Project) -> None:
    helper = (
        "from calc import mean\n\n\ndef check(xs, expected):\n    assert mean(xs) == expected\n"
    )
    guard = started(
        project, {"calc.py": CALC, "tests/helpers.py": helper, "tests/test_calc.py": TEST}
    )
    project.write({"tests/helpers.py": helper + "\n\ndef check(xs, expected):\n    pass\n"})
    project.write({"tests/more_helpers.py": ""})
    assert overlay(project, guard) == {
        "tests/helpers.py": helper.encode(),
        "tests/more_helpers.py": None,
    }


def test_a_script_the_makefile_runs_is_the_persons(project: Project) -> None:
    files = {
        "calc.py": CALC,
        "tests/test_calc.py": TEST,
        "Makefile": "test:\n\t./scripts/test.sh\n",
        "scripts/test.sh": "python -m pytest\n",
    }
    guard = started(project, files, ("make test",))
    project.write({"scripts/test.sh": "python -m pytest -k one\n"})
    assert overlay(project, guard, ("make test",)) == {"scripts/test.sh": b"python -m pytest\n"}


def test_what_a_killed_save_left_of_the_configuration_is_swept(project: Project) -> None:
    from ralph.store.disk.private import drop_legacy

    started(project)
    left = [
        project.store / "testconfig" / ".seen.json.00ff00ff00ff.tmp",
        project.store / "testconfig" / "blobs" / ".abc.aaaaaaaaaaaa.tmp",
    ]
    for path in left:
        path.write_text("half a file")
    drop_legacy(project.root)
    assert [p for p in left if p.exists()] == []


def test_no_test_of_the_persons_means_no_second_run(project: Project) -> None:
    # the person wrote the spec, not a test yet: the agent's new tests are all there is
    guard = started(project, {"calc.py": CALC, "Makefile": "test:\n\tpython -m pytest\n"})
    project.write({"tests/test_calc.py": TEST, "tests/conftest.py": ""})
    assert overlay(project, guard) == {}


def test_a_new_test_file_the_command_names_stays(project: Project) -> None:
    # the spec's command runs the file the spec asks for: leaving it out, nothing could run
    guard = started(project)
    project.write({"tests/test_new.py": TEST, "tests/test_other.py": TEST})
    found = overlay(project, guard, ("python -m pytest ./tests/test_new.py::test_mean",))
    assert found == {"tests/test_other.py": None}
