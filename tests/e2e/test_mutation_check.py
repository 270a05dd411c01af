"""`method: mutation` through the real CLI: an agent whose new tests only call its code is
refused at the DONE that would reach 3/3, with a surviving mutant named; strong tests reach
verified with the final verification on; the check is skipped at the DONEs before; it keeps to
`max_mutants` and its `timeout`, and a mutant that loops forever counts as killed."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.checks.mutation import CONTROL_FAILED
from ralph.store.rooms.room import rooms_dir
from tests.conftest import Project
from tests.e2e.test_operator import gone, wait_for

PY = sys.executable
UNITTEST = f"{PY} -m unittest discover -v -s tests -t ."
STUB = "def mean(xs):\n    raise NotImplementedError\n"
MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"
HEADER = "import unittest\n\nfrom calc import {name}\n\n\nclass T(unittest.TestCase):\n"
CALLS = HEADER.format(name="mean") + "    def test_mean(self):\n        self.{}\n"
WEAK = CALLS.format("assertIsNotNone(mean([1, 2, 3]))")  # calls the code, asserts nothing of it
STRONG = CALLS.format("assertEqual(mean([1, 2, 3]), 2)")
SURVIVOR = "calc/__init__.py:2 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`"


def mutation_project(p: Project, config: str = "") -> None:
    check = "  - method: mutation\n" + (f"    config: {config}\n" if config else "")
    p.write(
        {
            ".gitignore": ".ralph/\n__pycache__/\n",
            "calc/__init__.py": STUB,
            "tests/__init__.py": "",
            "tests/test_base.py": "import unittest\n\n\nclass B(unittest.TestCase):\n"
            "    def test_true(self):\n        self.assertTrue(True)\n",
            "PROMPT.md": f"---\ntest_command: {UNITTEST}\nchecks:\n{check}---\n# Write mean()\n",
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()


def work(
    code: str, test: str, *, name: str = "calc/__init__.py", test_name: str = "tests/test_calc.py"
) -> list[dict[str, Any]]:
    return [{"write": {name: code, test_name: test}, "signal": "DONE"}]


def mutation_checks(p: Project) -> list[dict[str, Any]]:
    return [c for c in p.worklog("check") if c.get("method") == "mutation"]


def test_weak_tests_are_refused_at_the_decisive_done_naming_a_surviving_mutant(
    git_project: Project,
) -> None:
    mutation_project(git_project)
    res = git_project.run("run", *git_project.fake({"*": work(MEAN, WEAK)}), "-n", "4")
    assert res.exit_code == 3, res
    assert "every spec verified" not in res.stdout
    checks = mutation_checks(git_project)
    # skipped (not passed) at the DONEs that would reach 1/3 and 2/3, run at the third
    assert [c["skipped"] for c in checks[:2]] == [True, True]
    refused = checks[2]
    assert refused["passed"] is False and refused["skipped"] is False
    assert "score 0.50: 1 of 2 mutants killed" in refused["summary"]
    assert SURVIVOR in refused["summary"]
    # the next DONE decides again on the same tree: the result is the cached one
    assert checks[3]["cached"] is True and checks[3]["summary"] == refused["summary"]
    # the agent is told which change its tests missed
    handoff = (git_project.root / ".ralph" / "prompt.md").read_text()
    assert SURVIVOR in handoff


def test_strong_tests_pass_and_the_run_is_verified_with_the_final_verification(
    git_project: Project,
) -> None:
    mutation_project(git_project)
    res = git_project.run("run", *git_project.fake({"*": work(MEAN, STRONG)}), "-n", "6")
    assert res.exit_code == 0, res
    assert git_project.state()["final_verification"]["passed"] is True
    ran = [c for c in mutation_checks(git_project) if not c["skipped"]]
    assert ran and all(c["passed"] for c in ran)
    assert "score 1.00: 2 of 2 mutants killed" in ran[0]["summary"]


def test_tests_that_fail_whatever_the_code_after_one_run_kill_nothing(
    git_project: Project, tmp_path: Path
) -> None:
    # weak tests that pass on their first run in the mutants' room and fail on every later
    # one: without a second unmutated run at an unforeseeable place, every mutant "dies"
    seen = tmp_path / "seen"
    stateful = WEAK.replace(
        "        self.assertIsNotNone",
        "        import os\n"
        f"        if '.mutant' in os.getcwd():\n            if os.path.exists({str(seen)!r}):\n"
        "                self.fail('not the first run')\n"
        f"            open({str(seen)!r}, 'w').close()\n"
        "        self.assertIsNotNone",
    )
    mutation_project(git_project)
    res = git_project.run("run", *git_project.fake({"*": work(MEAN, stateful)}), "-n", "3")
    assert res.exit_code == 3, res
    refused = next(c for c in mutation_checks(git_project) if not c["skipped"])
    assert refused["passed"] is False
    assert refused["summary"].startswith(CONTROL_FAILED), refused


COUNTDOWN = "def countdown(n):\n    while n > 0:\n        n = n - 1\n    return n\n"
COUNT_TEST = (
    HEADER.format(name="countdown")
    + "    def test_it(self):\n        self.assertEqual(countdown(3), 0)\n"
)


@pytest.mark.slow
def test_max_mutants_is_kept_and_a_mutant_that_loops_forever_is_killed(
    git_project: Project,
) -> None:
    # `while n > 0` -> `while not (n > 0)` first, then `n - 1` -> `n + 1`: an endless loop
    mutation_project(git_project, "{max_mutants: 2}")
    steps = work(COUNTDOWN, COUNT_TEST)
    res = git_project.run("run", *git_project.fake({"*": steps}), "-n", "3")
    assert res.exit_code == 0, res
    ran = [c for c in mutation_checks(git_project) if not c["skipped"]]
    assert "score 1.00: 2 of 2 mutants killed (2 chosen of 6 mutants)" in ran[0]["summary"]


@pytest.mark.slow
def test_the_whole_check_stops_at_its_timeout_and_untried_mutants_count_as_surviving(
    git_project: Project,
) -> None:
    mutation_project(git_project, "{timeout: 3}")
    steps = work(COUNTDOWN, COUNT_TEST)
    res = git_project.run("run", *git_project.fake({"*": steps}), "-n", "4")
    assert res.exit_code == 3, res
    ran = next(c for c in mutation_checks(git_project) if not c["skipped"])
    # the mutants of line 2 die at once; line 3's first loops until the budget is spent, and
    # is not counted killed (its own bound, 3x the run + 5 s, was not what stopped it)
    found = re.search(
        r"score 0.\d\d: (\d) of 6 mutants killed \((\d) not tried within its "
        r"3 s timeout count as surviving\), below 0.6",
        ran["summary"],
    )
    assert found is not None and int(found[1]) + int(found[2]) == 6, ran
    assert ran["seconds"] < 5.5  # the budget, not the mutant's own bound (over 5 s)
    assert "raise config.timeout" in (git_project.root / ".ralph" / "prompt.md").read_text()


def test_no_python_change_is_refused_naming_what_changed(git_project: Project) -> None:
    # fail closed: a check with nothing to mutate proves nothing, so it never passes
    mutation_project(git_project)
    steps = [{"write": {"web/app.js": "export const x = 1;\n"}, "signal": "DONE"}]
    res = git_project.run("run", *git_project.fake({"*": steps}), "-n", "3")
    assert res.exit_code == 3, res
    ran = next(c for c in mutation_checks(git_project) if not c["skipped"])
    assert not ran["passed"]
    assert "no mutant: no Python code changed since the run began" in ran["summary"]
    assert "(changed: web/app.js)" in ran["summary"]


def test_a_mutation_check_without_a_command_is_one_clear_line(project: Project) -> None:
    project.write({"PROMPT.md": "---\nchecks:\n  - method: mutation\n---\n# x\n"})
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "-n", "1")
    assert res.exit_code == 1, res  # a spec error (docs/reference/exit-codes.md)
    assert "PROMPT.md: front matter: checks: " in res.stderr + res.stdout
    assert "checks: a mutation check needs a command to run: give it config.command" in res.stderr
    assert "Traceback" not in res.stderr + res.stdout


@pytest.mark.slow
def test_cancel_now_stops_a_running_mutant_and_leaves_nothing_running(
    project: Project, tmp_path: Path
) -> None:
    marker = tmp_path / "mutant.pid"
    # the tests hang on one mutant (`n - 1` -> `n + 1`) as an endless loop would, and say so
    hang = f"grep -q 'n + 1' calc/__init__.py && {{ echo $$ > {marker}; exec sleep 120; }}; "
    mutation_project(project)
    spec = (project.root / "PROMPT.md").read_text()
    project.write({"PROMPT.md": spec.replace(UNITTEST, hang + UNITTEST)})
    project.commit_all("the hanging test command")
    agent = project.script({"*": work(COUNTDOWN, COUNT_TEST)})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", agent, "-n", "3"],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: marker.exists() and marker.read_text().strip().isdigit(), 60)
        mutant = int(marker.read_text())
        started = time.monotonic()
        res = project.run_subprocess("cancel", "--now", "--wait")
        assert res.exit_code == 0, res
        out, _ = proc.communicate(timeout=60)
        assert time.monotonic() - started < 30  # not the mutant's own bound
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, out
    wait_for(lambda: gone(mutant), 10)
    assert not any(
        c.get("method") == "mutation" and not c["skipped"] and c["passed"]
        for c in project.worklog("check")
    )


def test_a_secret_in_the_agents_code_is_not_quoted_by_the_refusal(
    git_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cr3t-value-4242"
    monkeypatch.setenv("SERVICE_API_KEY", secret)
    mutation_project(git_project)
    code = f"def mean(xs):\n    return sum(xs) / len(xs) if '{secret}' else 0\n"
    res = git_project.run("run", *git_project.fake({"*": work(code, WEAK)}), "-n", "4")
    assert res.exit_code == 3, res
    refused = next(c for c in mutation_checks(git_project) if not c["skipped"])
    assert "survived" in refused["summary"]
    seen = [res.stdout, (git_project.root / ".ralph" / "prompt.md").read_text()]
    seen += [p.read_text() for p in (git_project.root / ".ralph").rglob("*") if p.is_file()]
    assert not any(secret in text for text in seen)


@pytest.mark.slow
def test_in_lanes_the_check_runs_in_the_lanes_rooms_and_refuses_weak_tests(
    project: Project,
) -> None:
    # two specs in two lanes: a's tests bite, b's only call the code. Each lane gets the
    # other's work early (at its 1/3); each check mutates only its own spec's work, so a's
    # tests are never asked to kill b.py's mutants (nor b's a.py's).
    def spec(name: str) -> str:
        command = f"{PY} -m unittest -v tests.test_{name}"
        return f"---\ntest_command: {command}\nchecks:\n  - method: mutation\n---\n# {name}\n"

    project.write(
        {
            ".gitignore": ".ralph/\n__pycache__/\n",
            "tests/__init__.py": "",
            "specs/a.spec.md": spec("a"),
            "specs/b.spec.md": spec("b"),
        }
    )
    project.git("init", "-q", "-b", "main")
    project.commit_all()
    test = "import unittest\n\nfrom {m} import mean\n\n\nclass T(unittest.TestCase):\n"
    test += "    def test_mean(self):\n        self.{check}\n"
    strong = test.format(m="a", check="assertEqual(mean([1, 2, 3]), 2)")
    weak = test.format(m="b", check="assertIsNotNone(mean([1, 2, 3]))")
    steps = {
        "specs/a.spec.md": work(MEAN, strong, name="a.py", test_name="tests/test_a.py"),
        "specs/b.spec.md": work(MEAN, weak, name="b.py", test_name="tests/test_b.py"),
    }
    res = project.run(
        "run",
        "--agent-command",
        project.script(steps),
        "--parallel",
        "2",
        "--headless",
        "-n",
        "8",
    )
    ran = {c["spec"]: c for c in mutation_checks(project) if not c["skipped"]}
    assert ran["specs/a.spec.md"]["passed"], ran
    assert "b.py:2 `sum(xs) / len(xs)` → `sum(xs) * len(xs)`" in ran["specs/b.spec.md"]["summary"]
    assert "a.py" not in ran["specs/b.spec.md"]["summary"]
    assert project.counts()["specs/a.spec.md"] == 3
    assert project.counts()["specs/b.spec.md"] < 3
    assert res.exit_code != 0
    rooms = {p.name for p in rooms_dir(project.root).iterdir()}
    assert any(r.endswith(".mutant") and r != "main.mutant" for r in rooms), rooms  # a lane's
