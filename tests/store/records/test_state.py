"""state.json: round trip, strict loading with clear messages, atomic saving."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ralph.errors import StateError
from ralph.rules.counts.state import SCHEMA_VERSION, SpecState, State, Tally, state_to_json
from ralph.store.records.state import load_state, save_state, state_from_json


def sample() -> State:
    return State(
        iteration=7,
        last_rotation=11,  # a reset happened: numbering went on
        max_iteration=20,
        current_spec="specs/a.spec.md",
        specs=(
            SpecState("PROMPT.md", 3, "DONE", "abc", False, 4),
            SpecState("specs/a.spec.md", 1, "CONTINUE", "def", True, 2),
            SpecState("specs/new.spec.md"),
        ),
    )


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    save_state(path, sample())
    assert load_state(path) == sample()
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION
    assert {"path", "done_count", "last_status", "last_hash", "modified_files"} <= set(
        data["specs"][0]
    )


def test_missing_file_is_a_fresh_state(tmp_path: Path) -> None:
    assert load_state(tmp_path / "state.json") == State()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["specs"][0].update(done_count=4), "specs[0].done_count: expected at most 3"),
        (lambda d: d["specs"][0].update(done_count="2"), "specs[0].done_count"),
        (lambda d: d["specs"][1].update(last_status="MAYBE"), "specs[1].last_status"),
        (lambda d: d["specs"][1].update(modified_files="yes"), "specs[1].modified_files"),
        (lambda d: d["specs"][2].pop("path"), "specs[2].path"),
        (lambda d: d.update(iteration=-1), "iteration"),
        (lambda d: d.update(specs={}), "specs: expected a list"),
        (lambda d: d["specs"].append(dict(d["specs"][0])), "appears twice"),
    ],
)
def test_hand_edited_state_is_refused_with_file_and_key(
    tmp_path: Path, mutate: object, message: str
) -> None:
    path = tmp_path / "state.json"
    data = state_to_json(sample())
    mutate(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    with pytest.raises(StateError) as err:
        load_state(path)
    assert message in err.value.message
    assert "state.json" in err.value.message
    assert path.read_bytes() == before  # the file is kept as it is


def test_corrupt_json_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"schema_version": 1, "specs": [')
    with pytest.raises(StateError, match="not valid JSON"):
        load_state(path)
    assert path.read_text() == '{"schema_version": 1, "specs": ['


def test_binary_garbage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(StateError, match="not valid JSON"):
        load_state(path)


def test_newer_schema_is_refused() -> None:
    data = state_to_json(sample())
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(StateError, match="newer ralph"):
        state_from_json(data)


def test_failed_write_keeps_old_file_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"
    save_state(path, sample())
    before = path.read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        save_state(path, State(iteration=99))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_breaker_final_verification_and_overrides_round_trip(tmp_path: Path) -> None:
    from ralph.rules.counts.breaker import Breaker
    from ralph.rules.counts.state import FinalVerification

    state = State(
        specs=(SpecState("PROMPT.md", 3, "DONE", "abc", False, 4, override="user_accepted"),),
        final=FinalVerification(passed=False, failures=2, last_failure="tests fail"),
        breaker=Breaker("OPEN", 3, 1234.5, ("a", "b"), "PROMPT.md"),
    )
    path = tmp_path / "state.json"
    save_state(path, state)
    assert load_state(path) == state
    # a state.json written before these keys existed loads with their defaults
    old = state_to_json(state)
    for key in ("final_verification", "breaker"):
        del old[key]
    loaded = state_from_json(old)
    assert (loaded.breaker, loaded.final) == (Breaker(), FinalVerification())


@pytest.mark.parametrize(
    ("patch", "key"),
    [
        ({"breaker": {"state": "AJAR"}}, "breaker.state"),
        ({"breaker": {"opened_at": "soon"}}, "breaker.opened_at"),
        ({"breaker": {"reasons": [1]}}, "breaker.reasons"),
        ({"breaker": []}, "breaker"),
        ({"final_verification": {"passed": "yes"}}, "final_verification.passed"),
        ({"final_verification": {"failures": -1}}, "final_verification.failures"),
    ],
)
def test_a_damaged_breaker_or_verification_record_names_its_key(
    patch: dict[str, object], key: str
) -> None:
    data = {**state_to_json(sample()), **patch}
    with pytest.raises(StateError, match=rf"state.json: {key}: "):
        state_from_json(data)


def test_an_unknown_override_is_refused() -> None:
    data = state_to_json(sample())
    data["specs"][0]["override"] = "trusted"
    with pytest.raises(StateError, match=r"specs\[0\]\.override: expected one of"):
        state_from_json(data)


def test_a_state_file_from_before_numbering_takes_its_iteration_as_the_last_number(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"schema_version": SCHEMA_VERSION, "iteration": 9, "specs": []}))
    state = load_state(path)
    assert (state.iteration, state.last_rotation) == (9, 9)


def test_a_state_file_from_before_usage_counting_still_loads() -> None:
    old = {
        "schema_version": 1,
        "iteration": 4,
        "max_iterations": 20,
        "current_spec": "PROMPT.md",
        "specs": [
            {
                "path": "PROMPT.md",
                "done_count": 2,
                "last_status": "DONE",
                "last_hash": "x",
                "modified_files": False,
                "rotations": 4,
            }
        ],
    }
    state = state_from_json(old)
    assert state.usage == Tally() and state.agent_usage == ()
    assert state.specs[0].usage == Tally() and state.specs[0].last_changed_by is None


@pytest.mark.parametrize(
    ("patch", "key"),
    [
        ({"usage": {"cost_usd": -1}}, "usage.cost_usd"),
        ({"usage": {"cost_usd": True}}, "usage.cost_usd"),
        ({"usage": {"input_tokens": "many"}}, "usage.input_tokens"),
        ({"usage": []}, "usage"),
        ({"agents": {"claude": {"output_tokens": -3}}}, "agents.claude.output_tokens"),
        ({"agents": ["claude"]}, "agents"),
    ],
)
def test_damaged_usage_is_reported_with_its_key(patch: dict[str, object], key: str) -> None:
    data = {"schema_version": 1, "specs": [], **patch}
    with pytest.raises(StateError, match=f"state.json: {key}:"):
        state_from_json(data)


def test_damaged_spec_usage_names_the_spec_key() -> None:
    data = {
        "schema_version": 1,
        "specs": [{"path": "a", "usage": {"rotations": -1}, "last_changed_by": None}],
    }
    with pytest.raises(StateError, match=r"specs\[0\]\.usage\.rotations"):
        state_from_json(data)
    data["specs"] = [{"path": "a", "last_changed_by": 7}]
    with pytest.raises(StateError, match=r"specs\[0\]\.last_changed_by"):
        state_from_json(data)
