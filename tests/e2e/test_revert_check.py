"""The revert check (`method: revert`, checks/revert.py) through the real CLI: the test cases an
agent adds must fail on the code as it was when the run began and pass now. Tests that also
pass on the old code, that fail now, or that are missing never reach verified; tests that bite
do, final verification included; an agent that forges the per-case results does not pass."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ralph.rules.evidence.revertverdict import NONE_ADDED, NOT_TESTED
from tests.conftest import Project
from tests.e2e.test_sandbox_run import disk_tmp, need

__all__ = ["disk_tmp"]  # the fixture, used by name

PY = sys.executable


WRONG = "def mean(xs):\n    return sum(xs) * len(xs)\n"


RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


OLD_TEST = "from calc import mean\n\n\ndef test_exists():\n    assert callable(mean)\n"


BITES = OLD_TEST + "\n\ndef test_mean_of_two():\n    assert mean([2, 4]) == 3\n"


HOLLOW = OLD_TEST + "\n\ndef test_mean_runs():\n    mean([2, 4])\n"


PYTEST = f"{PY} -m pytest -q -p no:cacheprovider tests"


CHECK = "checks:\n  - method: revert\n"


def calc_project(p: Project, check: str = CHECK, command: str = PYTEST, **extra: str) -> None:
    p.write(
        {
            ".gitignore": ".ralph/\n__pycache__/\n*.pyc\n",
            "calc/__init__.py": WRONG,
            "tests/__init__.py": "",
            "tests/test_calc.py": OLD_TEST,
            "PROMPT.md": f"---\ntest_command: {command}\n{check}---\n# Fix mean() in calc/\n",
            **extra,
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()


def run(p: Project, files: dict[str, str], n: int) -> Any:
    return p.run("run", *p.fake({"*": [{"write": files, "signal": "DONE"}]}), "-n", str(n))


def revert_results(p: Project) -> list[dict[str, Any]]:
    return [r for r in p.worklog("check") if r["method"] == "revert"]


def refused(p: Project, files: dict[str, str], why: str) -> list[dict[str, Any]]:
    """Three DONEs: the third would reach 3/3, and the revert check refuses it."""
    res = run(p, files, 3)
    assert res.exit_code == 3, res
    assert p.counts() != {"PROMPT.md": 3}
    ran = [r for r in revert_results(p) if not r["skipped"]]
    assert len(ran) == 1 and not ran[0]["passed"], ran
    assert why in ran[0]["summary"], ran[0]["summary"]
    reasons = p.worklog("done_gate")[-1]["reasons"]
    assert any(why in r for r in reasons), reasons
    # the agent reads it in its handoff, with what it can do
    (handoff,) = (p.root / ".ralph" / "handoffs").glob("*.md")
    assert why in handoff.read_text()
    return ran


@pytest.mark.slow
def test_a_test_that_fails_on_the_old_code_passes_and_the_run_is_verified(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    res = run(p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": BITES}, 6)
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    results = revert_results(p)
    # skipped at the first two DONEs, run at the third and at the final verification
    assert [r["skipped"] for r in results] == [True, True, False, False], results
    assert all(r["passed"] for r in results)
    assert "1 of 1 added test cases fail" in results[-1]["summary"]
    assert p.worklog("verification")[-1]["transition"] == "passed"


@pytest.mark.slow
def test_a_new_test_file_importing_a_new_function_counts_as_failing_on_the_old_code(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    median = "\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n"
    test = "from calc import median\n\n\ndef test_median():\n    assert median([3, 1, 2]) == 2\n"
    res = run(p, {"calc/__init__.py": RIGHT + median, "tests/test_median.py": test}, 6)
    assert res.exit_code == 0, res
    assert "1 of 1 added test cases fail" in revert_results(p)[-1]["summary"]


@pytest.mark.slow
def test_a_test_that_also_passes_on_the_old_code_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    (ran,) = refused(
        p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": HOLLOW}, "none of the 1 added"
    )
    assert ran["summary"].startswith(NOT_TESTED)
    assert "tests/test_calc.py::test_mean_runs: passed" in ran["summary"]


@pytest.mark.slow
def test_an_added_test_that_fails_now_is_refused(git_project: Project) -> None:
    p = git_project
    # the spec's test command runs one file: the revert check's own command runs them all
    own = f"checks:\n  - method: revert\n    config: {{command: {PYTEST}}}\n"
    calc_project(p, own, f"{PY} -m pytest -q -p no:cacheprovider tests/test_calc.py")
    wrong = "from calc import mean\n\n\ndef test_mean_wrong():\n    assert mean([2, 4]) == 4\n"
    files = {"calc/__init__.py": RIGHT, "tests/test_calc.py": BITES, "tests/test_more.py": wrong}
    (ran,) = refused(p, files, "1 of the 2 added test cases do not pass now")
    assert "tests/test_more.py::test_mean_wrong: failed" in ran["summary"]


@pytest.mark.slow
def test_no_added_case_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    refused(p, {"calc/__init__.py": RIGHT}, NONE_ADDED)


# A conftest that fails every test on the old code and passes it now: the hollow test then
# "fails on the old code".
MAKEREPORT = """import pytest
import calc


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and calc.mean([2, 4]) != 3:
        report.outcome = "failed"
"""


# The same at exit, after pytest wrote its report: the report rewritten where ralph asked for it.
AT_EXIT = """import atexit
import os
import shlex

import calc

FORGED = (
    '<testsuite><testcase classname="tests.test_calc" name="test_mean_runs">'
    '<failure message="forged"/></testcase></testsuite>'
)


def forge():
    if calc.mean([2, 4]) == 3:
        return
    for word in shlex.split(os.environ.get("PYTEST_ADDOPTS", "")):
        if word.startswith("--junitxml="):
            with open(word.split("=", 1)[1], "w") as f:
                f.write(FORGED)


atexit.register(forge)
"""


@pytest.mark.parametrize("conftest", [MAKEREPORT, AT_EXIT], ids=["makereport", "at-exit"])
@pytest.mark.slow
def test_a_conftest_that_forges_the_results_does_not_pass(
    git_project: Project, conftest: str
) -> None:
    p = git_project
    calc_project(p)
    files = {"calc/__init__.py": RIGHT, "tests/test_calc.py": HOLLOW, "tests/conftest.py": conftest}
    refused(p, files, "can rewrite the per-case results")


@pytest.mark.slow
def test_a_report_rewritten_unseen_does_not_match_the_runs_summary(git_project: Project) -> None:
    """The at-exit forger with the names the scan reads hidden: the report no longer matches
    the summary pytest printed."""
    p = git_project
    calc_project(p)
    hidden = AT_EXIT.replace('"PYTEST_ADDOPTS"', '"PYTEST_" + "ADD" + "OPTS"').replace(
        '"--junitxml="', '"--junit" + "xml="'
    )
    files = {"calc/__init__.py": RIGHT, "tests/test_calc.py": HOLLOW, "tests/conftest.py": hidden}
    refused(p, files, "does not match the summary it printed")


@pytest.mark.slow
def test_a_test_that_tells_the_rooms_apart_by_their_path_does_not_pass(
    git_project: Project,
) -> None:
    """Both runs are made in the same room: a test failing "on the old code" by its path fails
    on the new code too."""
    p = git_project
    calc_project(p)
    by_path = (
        HOLLOW + "\n\ndef test_where():\n    import os\n\n    assert 'revert' not in os.getcwd()\n"
    )
    files = {"calc/__init__.py": RIGHT, "tests/test_calc.py": by_path}
    refused(p, files, "do not pass now")


@pytest.mark.slow
def test_an_addopts_that_redirects_the_report_does_not_pass(git_project: Project) -> None:
    """The project's own `--junitxml` (with a forged report beside it) loses to ralph's."""
    p = git_project
    calc_project(p)
    forged = (
        '<testsuite><testcase classname="tests.test_calc" name="test_mean_runs">'
        '<failure message="forged"/></testcase></testsuite>'
    )
    files = {
        "calc/__init__.py": RIGHT,
        "tests/test_calc.py": HOLLOW,
        "pytest.ini": "[pytest]\naddopts = --junitxml=forged.xml\n",
        "forged.xml": forged,
    }
    refused(p, files, "none of the 1 added test cases fails")


@pytest.mark.slow
def test_a_run_that_writes_no_report_says_how_to_configure_one(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    files = {
        "calc/__init__.py": RIGHT,
        "tests/test_calc.py": BITES,
        "pytest.ini": "[pytest]\naddopts = -p no:junitxml\n",
    }
    refused(p, files, "set the check's config.report")


@pytest.mark.slow
def test_a_new_test_helper_is_the_tests_not_the_change(git_project: Project) -> None:
    """A helper added beside the tests stays on the old code: a hollow test that imports it
    does not seem to fail there."""
    p = git_project
    calc_project(p)
    test = "from tests.helpers import sample\nfrom calc import mean\n\n\ndef test_h():\n"
    test += "    mean(sample())\n"
    files = {
        "calc/__init__.py": RIGHT,
        "tests/helpers.py": "def sample():\n    return [2, 4]\n",
        "tests/test_helped.py": test,
    }
    refused(p, files, "none of the 1 added test cases fails")


def test_a_revert_check_needs_a_command(project: Project) -> None:
    project.write({"PROMPT.md": "---\nchecks:\n  - method: revert\n---\n# x\n"})
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "-n", "1")
    assert res.exit_code == 1, res
    assert "checks[0] (revert) has no config.command and the spec has no test_command" in (
        res.stdout + res.stderr
    )
    assert "Traceback" not in res.stdout + res.stderr


# A runner other than pytest: it runs the test functions itself and writes a JUnit report.
RUNNER = """import importlib
import sys

module = importlib.import_module("tests.test_calc")
cases = []
for name in sorted(n for n in dir(module) if n.startswith("test")):
    try:
        getattr(module, name)()
        cases.append((name, ""))
    except Exception:
        cases.append((name, '<failure message="failed"/>'))
with open("out/report.xml", "w") as f:
    f.write("<testsuite>")
    for name, failure in cases:
        f.write(f'<testcase classname="tests.test_calc" name="{name}">{failure}</testcase>')
    f.write("</testsuite>")
print(f"{len(cases)} cases")
"""


def runner_project(p: Project, report: str) -> None:
    config = f"{{command: {PY} runner.py{report}}}"
    check = f"checks:\n  - method: revert\n    config: {config}\n"
    calc_project(p, check, **{"runner.py": RUNNER, "out/.keep": ""})


@pytest.mark.slow
def test_another_runner_names_its_report(git_project: Project) -> None:
    runner_project(git_project, ", report: out/report.xml")
    res = run(git_project, {"calc/__init__.py": RIGHT, "tests/test_calc.py": BITES}, 6)
    assert res.exit_code == 0, res
    assert "1 of 1 added test cases fail" in revert_results(git_project)[-1]["summary"]


@pytest.mark.slow
def test_another_runner_without_report_is_told_to_name_it(git_project: Project) -> None:
    runner_project(git_project, "")
    files = {"calc/__init__.py": RIGHT, "tests/test_calc.py": BITES}
    refused(git_project, files, "set the check's config.report")


@pytest.mark.slow
def test_lanes_run_it_in_their_rooms_against_the_projects_start(git_project: Project) -> None:
    p = git_project
    steps: dict[str, Any] = {}
    files: dict[str, str] = {
        ".gitignore": ".ralph/\n__pycache__/\n*.pyc\n",
        "tests/__init__.py": "",
    }
    for n in "ab":
        old_test = OLD_TEST.replace("calc", f"calc_{n}")
        command = f"{PY} -m pytest -q -p no:cacheprovider tests/test_{n}.py"
        files |= {
            f"calc_{n}.py": WRONG,
            f"tests/test_{n}.py": old_test,
            f"specs/{n}.spec.md": f"---\ntest_command: {command}\n{CHECK}---\n# fix calc_{n}\n",
        }
        fixed = {f"calc_{n}.py": RIGHT, f"tests/test_{n}.py": BITES.replace("calc", f"calc_{n}")}
        steps[f"specs/{n}.spec.md"] = [{"write": fixed, "signal": "DONE"}, {"signal": "DONE"}]
    p.write(files)
    p.commit_all()
    res = p.run("run", "--agent-command", p.script(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert p.counts() == {"specs/a.spec.md": 3, "specs/b.spec.md": 3}
    ran = [r for r in revert_results(p) if not r["skipped"]]
    assert len(ran) >= 4 and all(r["passed"] for r in ran), ran  # each lane's, and the final's


@pytest.mark.slow
def test_under_the_bwrap_sandbox_the_runs_write_their_report_in_the_room(
    disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox hides ralph's store but for the room a check runs in: the report is there."""
    need("bwrap", monkeypatch)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    calc_project(p)
    agent = disk_tmp / "agent.py"  # writes only in the project: the sandbox lets it
    agent.write_text(
        "import os, pathlib\n"
        "if os.environ['RALPH_MODE'] == 'VERIFY':\n"
        "    print('<ralph>VERIFY_PASS</ralph>')\n"
        "else:\n"
        f"    pathlib.Path('calc/__init__.py').write_text({RIGHT!r})\n"
        f"    pathlib.Path('tests/test_calc.py').write_text({BITES!r})\n"
        "    print('<ralph>DONE</ralph>')\n"
    )
    res = p.run(
        "run", "--sandbox", "bwrap", "--agent-command", f"{PY} {agent}", "-n", "6", "--headless"
    )
    assert res.exit_code == 0, res.stdout + res.stderr
    ran = [r for r in revert_results(p) if not r["skipped"]]
    assert ran and all("1 of 1 added test cases fail" in r["summary"] for r in ran), ran
