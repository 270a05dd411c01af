"""checks/caseruns.py: a test run's per-case results, from a JUnit report this run wrote in
its room; the test runs played in-process (tests/fakes/commands.py), writing what pytest would."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from ralph.checks.caseruns import case_run
from ralph.process.request import ProcessRequest
from ralph.rules.evidence.junitcases import JCase
from ralph.specs.checkconfig import RevertConfig
from tests.fakes.commands import Answer, Commands

REPORT = (
    '<testsuite><testcase classname="t" name="test_a" file="t.py"/>'
    '<testcase classname="t" name="test_b" file="t.py"><failure/></testcase></testsuite>'
)


def pytest_writing(report: str, printed: str, *, age: float = 0.0) -> Commands:
    """pytest, as ralph asks it (`--junitxml=` in PYTEST_ADDOPTS): `report` written there
    (`age` seconds old), `printed` its summary."""

    def run(request: ProcessRequest) -> Answer:
        path = Path(re.findall(r"--junitxml=(\S+)", request.env["PYTEST_ADDOPTS"])[-1])
        path.write_text(report)
        if age:
            os.utime(path, (time.time() - age, time.time() - age))
        return (1, printed)

    return Commands({"pytest": run})


def cases(fake: Commands, room: Path, cfg: RevertConfig | None = None) -> tuple[object, str]:
    config = cfg or RevertConfig()
    ran = case_run(
        config, "pytest", room, {}, threading.Event(), name="revert", launcher=fake.launcher
    )
    return ran.cases, ran.why


def test_the_report_this_run_wrote_is_read_and_removed(tmp_path: Path) -> None:
    fake = pytest_writing(REPORT, "1 failed, 1 passed in 0.1s\n")
    found, why = cases(fake, tmp_path)
    assert found == [JCase("t", "test_a", "t.py", "passed"), JCase("t", "test_b", "t.py", "failed")]
    assert why == "" and list(tmp_path.iterdir()) == []  # the room holds no report after it
    assert "PYTEST_ADDOPTS" in fake.ran[0].passes  # ralph's own option: a sandbox lets it by


def test_a_report_that_does_not_match_the_printed_summary_is_no_result(tmp_path: Path) -> None:
    _, why = cases(pytest_writing(REPORT, "2 passed in 0.1s\n"), tmp_path)
    assert "does not match the summary it printed" in why


def test_a_report_older_than_the_run_is_not_its_own(tmp_path: Path) -> None:
    found, why = cases(pytest_writing(REPORT, "1 failed, 1 passed in 0.1s\n", age=60), tmp_path)
    assert found is None and "config.report" in why


def test_a_run_without_a_report_is_read_from_the_lines_it_printed(tmp_path: Path) -> None:
    printed = (
        "test_a (t.T.test_a) ... ok\ntest_b (t.T.test_b) ... FAIL\n\n"
        "Ran 2 tests in 0.001s\n\nFAILED (failures=1)\n"
    )
    found, _ = cases(Commands({"pytest": (1, printed)}), tmp_path)
    assert isinstance(found, list) and [c.outcome for c in found] == ["passed", "failed"]


def test_a_report_behind_a_link_out_of_the_room_is_neither_read_nor_removed(
    tmp_path: Path,
) -> None:
    outside, room = tmp_path / "outside", tmp_path / "room"
    outside.mkdir()
    room.mkdir()
    (outside / "report.xml").write_text("<testsuite/>")

    def link(request: ProcessRequest) -> Answer:
        (request.cwd / "out").symlink_to(outside)
        return (0, "")

    found, why = cases(Commands({"pytest": link}), room, RevertConfig(report="out/report.xml"))
    assert found is None and "not inside the project" in why
    assert (outside / "report.xml").read_text() == "<testsuite/>"
