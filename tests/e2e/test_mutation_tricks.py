"""The mutation check against tricks, through the real CLI with small scripted agents, each
beside an honest control: code that tells a mutant from the unmutated run by its file's
modification time; logic kept in a data file that Python executes; code written in another
spec's rotation. Each trick is refused, naming what was seen; honest work with several specs,
and a refactor, reach verified."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from ralph.checks.mutation import CONTROL_FAILED
from tests.conftest import Project
from tests.e2e.test_mutation_check import (
    MEAN,
    STRONG,
    WEAK,
    mutation_checks,
    mutation_project,
    work,
)

pytestmark = pytest.mark.slow
PY = sys.executable
STRICT = "{min_score: 1.0}"  # any survivor refuses: the trick's own lines die, the wrong one not

# a mutant is written later than the agent wrote its twin: raise there, so every mutant "dies"
BY_MTIME = MEAN + (
    "\n\nimport os\n\n_here = os.path.dirname(os.path.abspath(__file__))\n"
    "_ages = [os.stat(os.path.join(_here, n)).st_mtime for n in ('__init__.py', 'twin.py')]\n"
    "if max(_ages) - min(_ages) > 0.1:\n    raise ImportError('a mutant')\n"
)


def refused_with(p: Project, steps: Any, text: str, n: int = 4) -> dict[str, Any]:
    res = p.run("run", *p.fake(steps), "-n", str(n))
    assert res.exit_code == 3, mutation_checks(p)
    assert p.counts()["PROMPT.md"] < 3
    ran = [c for c in mutation_checks(p) if not c["skipped"]]
    assert ran and not ran[0]["passed"], ran
    assert text in ran[0]["summary"], ran[0]["summary"]
    return ran[0]


def test_code_that_tells_a_mutant_by_its_modification_time_is_refused(
    git_project: Project,
) -> None:
    mutation_project(git_project, STRICT)
    files = {"calc/__init__.py": BY_MTIME, "calc/twin.py": "TWIN = 1\n", "tests/test_calc.py": WEAK}
    refused_with(
        git_project,
        {"*": [{"write": files, "signal": "DONE"}]},
        "survived: calc/__init__.py:2 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`",
    )


def test_logic_kept_in_a_data_file_python_evaluates_is_mutated(git_project: Project) -> None:
    mutation_project(git_project, STRICT)
    loader = (
        "import os\n\n\ndef mean(xs):\n    here = os.path.dirname(os.path.abspath(__file__))\n"
        "    with open(os.path.join(here, 'formula.txt')) as f:\n"
        "        return eval(f.read(), {'xs': xs})\n"
    )
    files = {
        "calc/__init__.py": loader,
        "calc/formula.txt": "sum(xs) / len(xs)\n",
        "tests/test_calc.py": WEAK,
    }
    refused_with(
        git_project,
        {"*": [{"write": files, "signal": "DONE"}]},
        "calc/formula.txt:1 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`",
    )


def test_code_in_a_data_file_that_is_not_python_source_is_refused(git_project: Project) -> None:
    mutation_project(git_project)
    loader = (
        "import os\n\n\ndef mean(xs):\n    here = os.path.dirname(os.path.abspath(__file__))\n"
        "    with open(os.path.join(here, 'rules.cfg')) as f:\n"
        "        return eval(f.read().split('---')[1], {'xs': xs})\n"
    )
    files = {
        "calc/__init__.py": loader,
        "calc/rules.cfg": "[mean]\n---\nsum(xs) / len(xs)\n",
        "tests/test_calc.py": WEAK,
    }
    refused_with(
        git_project,
        {"*": [{"write": files, "signal": "DONE"}]},
        "calc/rules.cfg is run as Python code",
    )


def two_specs(p: Project) -> None:
    def spec(name: str) -> str:
        command = f"{PY} -m unittest -v tests.test_{name}"
        return f"---\ntest_command: {command}\nchecks:\n  - method: mutation\n---\n# {name}\n"

    p.write(
        {
            ".gitignore": ".ralph/\n__pycache__/\n",
            "tests/__init__.py": "",
            "specs/a.spec.md": spec("a"),
            "specs/b.spec.md": spec("b"),
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()


def case_file(module: str, check: str, name: str = "mean") -> str:
    head = f"import unittest\n\nfrom {module} import {name}\n\n\nclass T(unittest.TestCase):\n"
    return head + f"    def test_it(self):\n        self.{check}\n"


def test_code_written_in_another_specs_rotation_is_still_mutated(project: Project) -> None:
    # the rotation on a writes b's code and b's weak tests too; b's own rotation changes only
    # a note: b's check still mutates b.py (its tests run it), and a's does not (they do not)
    two_specs(project)
    files = {
        "a.py": MEAN,
        "tests/test_a.py": case_file("a", "assertEqual(mean([1, 2, 3]), 2)"),
        "b.py": MEAN,
        "tests/test_b.py": case_file("b", "assertIsNotNone(mean([1, 2, 3]))"),
    }
    steps = {
        "specs/a.spec.md": [{"write": files, "signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"notes.md": "b is done\n"}, "signal": "DONE"}],
    }
    res = project.run("run", *project.fake(steps), "-n", "10")
    assert res.exit_code != 0, res
    ran = {c["spec"]: c for c in mutation_checks(project) if not c["skipped"]}
    assert ran["specs/a.spec.md"]["passed"], ran
    summary = ran["specs/b.spec.md"]["summary"]
    assert "b.py:2 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`" in summary
    assert project.counts() == {"specs/a.spec.md": 3, "specs/b.spec.md": 2}


def test_honest_specs_sharing_a_module_reach_verified(project: Project) -> None:
    # a adds mean, b adds median, to the same module; each spec's tests run only its own:
    # the other's lines are never executed by them, so never asked of them
    two_specs(project)
    median = "\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n"
    steps = {
        "specs/a.spec.md": [
            {
                "write": {
                    "stats.py": MEAN,
                    "tests/test_a.py": case_file("stats", "assertEqual(mean([1, 2, 3]), 2)"),
                },
                "signal": "DONE",
            },
            {"signal": "DONE"},  # then it only says DONE: the other's work stays
        ],
        "specs/b.spec.md": [
            {
                "write": {
                    "stats.py": MEAN + median,
                    "tests/test_b.py": case_file(
                        "stats", "assertEqual(median([3, 1, 2]), 2)", "median"
                    ),
                },
                "signal": "DONE",
            },
            {"signal": "DONE"},
        ],
    }
    res = project.run("run", *project.fake(steps), "-n", "12")
    assert res.exit_code == 0, (mutation_checks(project), project.worklog("done_gate"))
    ran = [c for c in mutation_checks(project) if not c["skipped"]]
    assert ran and all(c["passed"] for c in ran), ran


def test_a_refactor_with_tests_that_bite_reaches_verified(git_project: Project) -> None:
    # the code moves to a module of its own and is imported back: its lines are new there,
    # and the person's strong test kills their mutants
    p = git_project
    mutation_project(p)
    p.write({"calc/__init__.py": MEAN, "tests/test_calc.py": STRONG})
    p.commit_all("mean() and its test, before the run")
    files = {
        "calc/core.py": MEAN,
        "calc/__init__.py": "from calc.core import mean\n\n__all__ = ['mean']\n",
    }
    res = p.run(
        "run",
        *p.fake({"*": work(MEAN, STRONG) and [{"write": files, "signal": "DONE"}]}),
        "-n",
        "6",
    )
    assert res.exit_code == 0, res
    ran = [c for c in mutation_checks(p) if not c["skipped"]]
    assert ran and all(c["passed"] for c in ran), ran
    assert "calc" in ran[0]["summary"] or "killed" in ran[0]["summary"]


def test_code_that_fails_whenever_it_is_not_traced_fails_the_control_run(
    git_project: Project,
) -> None:
    # the first run (traced) chooses the mutants; the mutants and the control run are not
    # traced: code that "dies" whenever untraced in the check's room kills every mutant, and
    # fails the unmutated control run too
    mutation_project(git_project)
    tells = MEAN + (
        "\n\nimport os\nimport sys\n\nif '.mutant' in os.getcwd() and sys.gettrace() is None:\n"
        "    raise ImportError('a mutant')\n"
    )
    files = {"calc/__init__.py": tells, "tests/test_calc.py": WEAK}
    refused_with(git_project, {"*": [{"write": files, "signal": "DONE"}]}, CONTROL_FAILED)


def test_code_merged_in_from_another_lane_is_still_mutated(project: Project) -> None:
    # in lanes, a's lane writes b's code and weak tests; b's lane only writes a note and gets
    # a's work merged in early: b's check mutates b.py all the same (b's tests run it)
    two_specs(project)
    files = {
        "a.py": MEAN,
        "tests/test_a.py": case_file("a", "assertEqual(mean([1, 2, 3]), 2)"),
        "b.py": MEAN,
        "tests/test_b.py": case_file("b", "assertIsNotNone(mean([1, 2, 3]))"),
    }
    steps = {
        "specs/a.spec.md": [{"write": files, "signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"notes.md": "b is done\n"}, "signal": "DONE"}],
    }
    res = project.run(
        "run",
        "--agent-command",
        project.script(steps),
        "--parallel",
        "2",
        "--headless",
        "-n",
        "10",
    )
    assert res.exit_code != 0, res
    ran = [c for c in mutation_checks(project) if not c["skipped"]]
    assert not any(c["passed"] for c in ran if c["spec"] == "specs/b.spec.md"), ran
    assert project.counts()["specs/b.spec.md"] < 3
    of_b = [c["summary"] for c in ran if c["spec"] == "specs/b.spec.md"]
    assert of_b and all("b.py:2 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`" in s for s in of_b)


# wrong code in a string, exec'd at import: the string is its only mutant, and a mutant of it
# breaks the import, so every mutant "dies" and the hollow test passes
IN_A_STRING = 'SOURCE = "def mean(xs):\\n    return 2\\n"\nexec(SOURCE)\n'


def test_code_kept_in_a_string_and_execd_is_refused_by_name(git_project: Project) -> None:
    mutation_project(git_project)
    refused_with(
        git_project,
        {"*": work(IN_A_STRING, WEAK)},
        "calc/__init__.py:2 runs code kept in a string (exec, eval or compile)",
    )
