"""Sealed acceptance tests (`ralph seal`, checks/sealed.py), through the real CLI: a person's
tests kept out of the agent's sight decide every DONE that counts and the final verification;
the agent learns how many failed, never which or what they hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ralph.store.person.sealed import sealed_dir
from tests.conftest import Project
from tests.store.person.test_sealed import (
    COMMAND,
    SEALED_PATH,
    SECRET_WORD,
    calc_project,
)

PY = sys.executable


WRONG = "def mean(xs):\n    return 0\n"


RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


CHEAT = "def mean(xs):\n    return 2\n"  # what the visible test expects, whatever the input


def write_step(code: str) -> dict[str, object]:
    return {"write": {"calc/__init__.py": code}, "signal": "DONE"}


def test_refused_while_a_run_is_live(git_project: Project) -> None:
    from ralph.store.live.runlock import RunLock

    p = git_project
    calc_project(p, seal=False)
    (p.root / ".ralph").mkdir(exist_ok=True)
    with RunLock(p.root / ".ralph"):
        res = p.run_subprocess("seal", SEALED_PATH, "--spec", "PROMPT.md")
    assert res.exit_code == 1, res
    assert "another ralph run is live" in res.stderr
    assert (p.root / SEALED_PATH).exists()


@pytest.mark.slow
def test_a_hard_coding_agent_is_never_verified(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *p.fake({"*": [write_step(CHEAT)]}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert "DONE refused: sealed tests: 2 of 3 failed" in res.stdout
    # the control: the visible test passes where the agent left it
    visible = subprocess.run(COMMAND, shell=True, cwd=p.root, capture_output=True, check=False)
    assert visible.returncode == 0


@pytest.mark.slow
def test_an_honest_agent_is_verified_with_the_final_verification(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *p.fake({"*": [write_step(RIGHT), {"signal": "DONE"}]}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert "final verification passed" in res.stdout
    ran = [r for r in p.worklog("check") if r.get("name") == "sealed tests"]
    assert len(ran) >= 4  # three DONEs and the final verification


FORGER = (
    # a pytest hook that reports every failed test as passed: it would pass any sealed test
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
    "    report = outcome.get_result()\n    if report.failed:\n        report.outcome = 'passed'\n"
)


@pytest.mark.slow
def test_the_agents_test_configuration_cannot_pass_the_sealed_tests(git_project: Project) -> None:
    p = git_project
    calc_project(p, command=f"{PY} -m pytest -q -p no:cacheprovider tests")
    step = {"write": {"calc/__init__.py": CHEAT, "tests/conftest.py": FORGER}, "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "2")
    assert res.exit_code == 3, res
    assert "DONE refused: sealed tests: 2 of 3 failed" in res.stdout


def test_a_spec_without_front_matter_runs_them_with_ralph_yaml_s_command(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p, seal=False)
    p.write(
        {"PROMPT.md": "# Make mean() in calc/ right\n", "ralph.yaml": f"test_command: {COMMAND}\n"}
    )
    p.git("add", "PROMPT.md", "ralph.yaml")
    p.git("commit", "-qm", "no front matter")
    assert p.run("seal", SEALED_PATH, "--spec", "PROMPT.md").exit_code == 0
    res = p.run("run", *p.fake({"*": [write_step(CHEAT)]}), "-n", "2")
    assert res.exit_code == 3, res
    assert "DONE refused: sealed tests: 2 of 3 failed" in res.stdout


SECRETS = (SECRET_WORD, "acceptance_hidden", "Zebracrossing")


def _leaks(folder: Path, skip: Path | None = None) -> list[str]:
    """Every file under `folder` (but `skip`) that holds a word of the sealed file."""
    found = []
    for path in folder.rglob("*"):
        if not path.is_file() or (skip is not None and skip in path.parents):
            continue
        data = path.read_bytes()
        found += [f"{path}: {w}" for w in SECRETS if w.encode() in data or w in path.name]
    return found


@pytest.mark.slow
def test_the_sealed_content_and_names_appear_nowhere_the_agent_or_the_logs_see(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    prompts = p.root.parent / "prompts.txt"
    keep = f'cat "$RALPH_PROMPT_FILE" >> {prompts}'
    cheat = {"run": keep, "write": {"calc/__init__.py": CHEAT}, "signal": "DONE"}
    honest = {"run": keep, "write": {"calc/__init__.py": RIGHT}, "signal": "DONE"}
    steps = {"*": [cheat, cheat, honest, {"run": keep, "signal": "DONE"}]}
    steps["VERIFY"] = [{"run": keep, "signal": "VERIFY_PASS"}]
    reports = p.root.parent / "reports"
    res = p.run(
        "run",
        *p.fake(steps),
        "-n",
        "8",
        "--report-junit",
        str(reports / "r.xml"),
        "--report-json",
        str(reports / "r.json"),
        "--report-html",
        str(reports / "r.html"),
    )
    assert res.exit_code == 0, res
    assert "sealed tests: 2 of 3 failed" in res.stdout  # the count reached the agent
    assert "sealed tests: 2 of 3 failed" in prompts.read_text()
    outputs = [
        res.stdout + res.stderr,
        p.run("status", "--json").stdout,
        p.run("history").stdout,
        *(p.run("history", str(n)).stdout for n in range(1, 6)),
        p.run("report", "--html", str(reports / "later.html")).stdout,
    ]
    for text in [*outputs, prompts.read_text()]:
        assert not [w for w in SECRETS if w in text]
    assert _leaks(p.root / ".ralph") == []  # worklog, handoffs, history, current.log, archive
    assert _leaks(reports) == []
    assert _leaks(p.store, skip=sealed_dir(p.root)) == []  # rooms, caches, baselines
    assert _leaks(p.root, skip=p.root / ".ralph") == []  # the work tree: no copy left


@pytest.mark.parametrize("killed", [False, True])
@pytest.mark.slow
def test_a_sealed_file_is_no_shrinking_of_the_tests(git_project: Project, killed: bool) -> None:
    """Sealed after a run had it in the baseline (even after a run that was killed, when test
    edits wait for a person's say): the guard forgets it as a person's deletion."""
    from ralph.store.person.testbaseline import TestStore

    p = git_project
    calc_project(p, seal=False)
    assert p.run("run", *p.fake({"*": [{"signal": "CONTINUE"}]}), "-n", "1").exit_code == 3
    tests = TestStore(p.root / ".ralph")
    assert SEALED_PATH in tests.baseline()
    if killed:
        tests.mark_running(True)  # what a run killed mid-rotation leaves
    assert p.run("seal", SEALED_PATH, "--spec", "PROMPT.md").exit_code == 0
    assert SEALED_PATH not in tests.baseline() and SEALED_PATH not in tests.seen()
    res = p.run("run", *p.fake({"*": [write_step(RIGHT)]}), "-n", "4")  # the last step repeats
    assert res.exit_code == 0, res
    assert "weakened" not in res.stdout and "fewer tests" not in res.stdout


@pytest.mark.slow
def test_a_lanes_done_runs_the_sealed_tests_in_the_lanes_own_room(project: Project) -> None:
    from ralph.store.rooms.room import rooms_dir

    p = project
    calc_project(p, seal=False)
    spec = "specs/calc.spec.md"
    p.write({spec: (p.root / "PROMPT.md").read_text(), "specs/other.spec.md": "# other\n"})
    (p.root / "PROMPT.md").unlink()
    p.git("add", "-A", ":!" + SEALED_PATH)
    p.git("commit", "-qm", "two specs")
    assert p.run("seal", SEALED_PATH, "--spec", spec).exit_code == 0
    steps = {spec: [write_step(CHEAT)], "specs/other.spec.md": [{"signal": "DONE"}]}
    res = p.run(
        "run", "--agent-command", p.script(steps), "--parallel", "2", "-n", "4", "--headless"
    )
    assert res.exit_code != 0, res
    assert p.counts()[spec] == 0
    assert "sealed tests: 2 of 3 failed" in res.stdout
    names = [d.name for d in rooms_dir(p.root).iterdir()]
    # in the lane's room A (its tree's), not the project's, and in no room of their own
    assert not [n for n in names if n.endswith(".sealed")]
    assert [n for n in names if n != "main" and (rooms_dir(p.root) / n / "tree").is_dir()]
