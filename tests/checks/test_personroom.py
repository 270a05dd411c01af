"""checks/personroom.py: room B, the person's tests run once more against the agent's code
when the agent changed the tests; the test runs played in-process, reading the room."""

from __future__ import annotations

import re
from pathlib import Path

from ralph.checks.personroom import PERSON_FAILED, PERSON_SUFFIX
from ralph.checks.result import CheckCache, GateResult
from ralph.process.request import ProcessRequest
from tests.checks.test_gate import FAILED, PASSED, Rig, rig, spec
from tests.fakes.commands import Answer

A = "specs/a.spec.md"
TEST = "from calc import VALUE\n\n\ndef test_value():\n    assert VALUE == 5\n"


def pytest_run(request: ProcessRequest) -> Answer:
    """A test run: it passes when every value the tests expect is the code's."""
    expected = set(re.findall(r"== (\d+)", (request.cwd / "tests/test_calc.py").read_text()))
    code = set(re.findall(r"= (\d+)", (request.cwd / "calc.py").read_text()))
    return PASSED if expected == code else FAILED


def checked(r: Rig) -> GateResult:
    spec_ = r.specs()[A]
    meta = r.gate.meta(spec_)[0]
    assert meta is not None
    gate, _ = r.gate.place.run(r.gate.tests, spec_, meta, "IMPLEMENT", cache=CheckCache(), tree="t")
    return gate


def project(tmp_path: Path) -> Rig:
    files = {A: spec("test_command: pytest -q"), "tests/test_calc.py": TEST}
    return rig(tmp_path, {**files, "calc.py": "VALUE = 1\n"}, {"pytest -q": pytest_run})


def test_tests_the_agent_changed_to_pass_fail_as_the_person_left_them(tmp_path: Path) -> None:
    r = project(tmp_path)
    r.write("calc.py", "VALUE = 6\n")
    r.write("tests/test_calc.py", TEST.replace("== 5", "== 6"))
    gate = checked(r)
    assert not gate.passed
    assert [x.name for x in gate.results] == ["test_command", "test_command (person's tests)"]
    assert gate.results[-1].summary.startswith(PERSON_FAILED)
    room_a, room_b = (req.cwd for req in r.commands.ran)
    assert room_b.parent.name == room_a.parent.name + PERSON_SUFFIX  # its own room


def test_tests_the_agent_left_alone_run_once(tmp_path: Path) -> None:
    r = project(tmp_path)
    r.write("calc.py", "VALUE = 5\n")
    assert checked(r).passed and len(r.commands.ran) == 1


def test_tests_the_agent_changed_that_hold_as_the_person_left_them_pass(tmp_path: Path) -> None:
    r = project(tmp_path)
    r.write("calc.py", "VALUE = 5\n")
    r.write("tests/test_calc.py", TEST + "\n\ndef test_more():\n    assert VALUE == 5\n")
    gate = checked(r)
    assert gate.passed and len(r.commands.ran) == 2  # once more, as the person left them
