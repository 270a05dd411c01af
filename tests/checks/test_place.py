"""checks/place.py: where a gate's command checks run, the clean room of its tree; the
commands played in-process, looking at the room as a real check would."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.place import Ran
from ralph.checks.result import CheckCache
from ralph.process.request import ProcessRequest
from ralph.process.treecode import TreeCode
from tests.checks.test_gate import PASSED, Rig, rig, spec
from tests.fakes.commands import Answer

A = "specs/a.spec.md"


def run(r: Rig, tree: str = "t") -> bool:
    spec_ = r.specs()[A]
    meta = r.gate.meta(spec_)[0]
    assert meta is not None
    gate, _ = r.gate.place.run(
        r.gate.tests, spec_, meta, "IMPLEMENT", cache=CheckCache(), tree=tree
    )
    return gate.passed


def test_checks_run_in_a_room_of_their_own_with_its_interpreter_pinned(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": PASSED})
    assert run(r)
    ran = r.commands.ran[0]
    room = ran.cwd
    assert ran.room == room and not room.is_relative_to(r.root)
    assert (room / A).is_file()  # the tree's files are there
    assert ran.env["PYTHONDONTWRITEBYTECODE"] == "1" and ran.env["PYTHONNOUSERSITE"] == "1"
    assert f"--rootdir={room}" in ran.env["PYTEST_ADDOPTS"]  # no configuration from above it
    assert r.gate.place.here()[0] == room  # the same room every time


def test_what_a_check_writes_stays_in_its_room(tmp_path: Path) -> None:
    def writes(request: ProcessRequest) -> Answer:
        (request.cwd / "out.txt").write_text("made by the check\n")
        (request.cwd / A).write_text("# overwritten by the check\n")
        return PASSED

    r = rig(tmp_path, {A: spec("test_command: pytest -q")}, {"pytest -q": writes})
    assert run(r)
    assert not (r.root / "out.txt").exists() and "test_command" in (r.root / A).read_text()
    room = r.commands.ran[0].cwd
    assert run(r, "t2") and (room / A).read_text() == "# overwritten by the check\n"
    r.gate.place.here()  # synced again: the room is the tree's once more
    assert "test_command" in (room / A).read_text() and not (room / "out.txt").exists()


def test_an_ignored_file_is_in_the_room_only_when_a_person_had_it(tmp_path: Path) -> None:
    files = {A: spec("test_command: pytest -q"), ".gitignore": "*.env\n", "person.env": "A=1\n"}
    r = rig(tmp_path, files)
    r.write("agent.env", "B=2\n")  # after the run began: the agent's
    room = r.gate.place.here()[0]
    assert (room / "person.env").is_file() and not (room / "agent.env").exists()


def test_a_spec_whose_checks_run_no_command_gets_no_room(tmp_path: Path) -> None:
    front = "checks: [{method: string_match, config: {promise: DONE_IT}}]"
    r = rig(tmp_path, {A: spec(front)})
    meta = r.gate.meta(r.specs()[A])[0]
    assert meta is not None
    assert r.gate.place.for_checks(meta, "IMPLEMENT")[0] is None
    assert r.commands.ran == []


def test_a_refusal_says_what_the_room_left_out() -> None:
    code = TreeCode(env={})
    assert Ran(code).refusal() is None
    said = Ran(code, ("big.bin", "other.bin")).refusal()
    assert said == "not in the clean room the checks ran in: big.bin (and 1 more)"
