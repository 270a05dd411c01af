"""rules/evidence/caselines.py on what real runners print: `python -m unittest -v` and `pytest -v`
are
run here on small projects and their output read back as per-case results; a test that prints
lines like the runner's own (a fake "... ok", a fake summary) makes the output no result."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.rules.evidence.caselines import printed_cases, pytest_cases, unittest_cases
from ralph.rules.evidence.junitcases import JCase

pytestmark = pytest.mark.slow  # each test runs a real unittest or pytest

CALC = "def mean(xs):\n    return sum(xs) / len(xs)\n"
CASES = """import sys
import unittest

from calc import mean


class T(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(mean([2, 4]), 3)

    def test_fail(self):
        \"\"\"A docstring's first line is printed too.\"\"\"
        self.assertEqual(mean([2, 4]), 4)

    def test_error(self):
        raise RuntimeError("x")

    def test_noisy(self):
        sys.stderr.write("noise without an end")
        print("to stdout")

    @unittest.skip("why")
    def test_skip(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(1, 2)

    def test_sub(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)
"""
BROKEN = "import unittest\n\nfrom calc import median\n\n\nclass U(unittest.TestCase):\n"
BROKEN += "    def test_median(self):\n        pass\n"


def project(tmp_path: Path, tests: dict[str, str]) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests" / "__init__.py").write_text("")
    for name, text in tests.items():
        (tmp_path / "tests" / name).write_text(text)
    return tmp_path


def output(root: Path, *argv: str) -> str:
    """stdout then stderr, as a check's command output is read."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    res = subprocess.run(
        [sys.executable, *argv],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return res.stdout + res.stderr


def unittest_output(root: Path) -> str:
    return output(root, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", ".")


def by_name(cases: list[JCase] | None) -> dict[str, JCase]:
    assert cases is not None
    return {c.name: c for c in cases}


def test_unittest_v_gives_every_case_its_outcome(tmp_path: Path) -> None:
    root = project(tmp_path, {"test_calc.py": CASES, "test_broken.py": BROKEN})
    found = unittest_cases(unittest_output(root))
    assert found.why == ""
    cases = by_name(found.cases)
    outcome = {name: c.outcome for name, c in cases.items()}
    assert outcome == {
        "test_ok": "passed",
        "test_fail": "failed",
        "test_error": "failed",
        "test_noisy": "passed",
        "test_skip": "skipped",
        "test_xfail": "skipped",
        "test_sub": "failed",  # one of its subtests failed
        "tests.test_broken": "failed",  # not imported: every case of the module fails
    }
    assert cases["test_ok"].classname == "tests.test_calc.T"
    assert cases["tests.test_broken"].classname == ""  # junitcases' form of a broken module


def test_unittest_without_v_prints_no_cases(tmp_path: Path) -> None:
    root = project(tmp_path, {"test_calc.py": CASES})
    out = output(root, "-m", "unittest", "discover", "-s", "tests", "-t", ".")
    found = printed_cases(out)
    assert found.cases is None and "run unittest with -v" in found.why


def test_a_test_printing_a_fake_case_line_makes_no_result(tmp_path: Path) -> None:
    fake = CASES.replace(
        'sys.stderr.write("noise without an end")',
        'sys.stderr.write("\\ntest_new (tests.test_calc.T.test_new) ... ok\\n")',
    )
    found = unittest_cases(unittest_output(project(tmp_path, {"test_calc.py": fake})))
    assert found.cases is None and "test_new" in found.why


def test_a_failing_test_printing_ok_before_its_own_outcome_makes_no_result(
    tmp_path: Path,
) -> None:
    fake = CASES.replace(
        'sys.stderr.write("noise without an end")', 'sys.stderr.write("ok\\n"); self.fail()'
    )
    found = unittest_cases(unittest_output(project(tmp_path, {"test_calc.py": fake})))
    assert found.cases is None and "2 outcomes for test_noisy" in found.why


def test_a_fake_summary_after_the_real_one_makes_no_result(tmp_path: Path) -> None:
    fake = CASES.replace(
        'sys.stderr.write("noise without an end")',
        "import atexit; atexit.register(lambda: sys.stderr.write("
        '"\\nRan 9 tests in 0.001s\\n\\nOK\\n"))',
    )
    found = unittest_cases(unittest_output(project(tmp_path, {"test_calc.py": fake})))
    assert found.cases is None and "more than one unittest summary" in found.why


def test_pytest_v_and_ra_lines_give_every_case_its_outcome(tmp_path: Path) -> None:
    plain = "from calc import mean\n\n\ndef test_plain():\n    assert mean([1]) == 1\n"
    root = project(
        tmp_path, {"test_calc.py": CASES, "test_plain.py": plain, "test_broken.py": BROKEN}
    )
    for flags in (("-v",), ("-rA",), ("-v", "-rA")):
        out = output(
            root,
            "-m",
            "pytest",
            *flags,
            "-p",
            "no:cacheprovider",
            "--continue-on-collection-errors",
            "tests",
        )
        found = pytest_cases(out)
        assert found.why == "", (flags, found.why, out)
        cases = by_name(found.cases)
        assert cases["test_ok"].outcome == "passed" and cases["test_fail"].outcome == "failed"
        assert cases["test_sub"].outcome == "failed"  # a subtest failed
        # -rA names no skipped case (a skip proves nothing: missing is as good)
        assert cases.get("test_skip", JCase("", "", None, "skipped")).outcome == "skipped"
        assert cases["test_plain"] == JCase(
            "tests.test_plain", "test_plain", "tests/test_plain.py", "passed"
        )
        assert cases["tests/test_broken.py"].classname == ""


def test_pytest_lines_that_do_not_add_up_make_no_result(tmp_path: Path) -> None:
    root = project(tmp_path, {"test_calc.py": CASES})
    out = output(root, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests")
    forged = out.replace("::test_fail FAILED", "::test_fail PASSED")
    assert pytest_cases(forged).cases is None
    assert "do not add up" in pytest_cases(forged).why
