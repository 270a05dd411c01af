"""store/records/journal.py: progress.md and errors.log one line per entry (a name's escapes made
visible), the notes a handoff gets, and old refusal notes moved out once a DONE passed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ralph.store.records.journal import (
    PROGRESS_HEADER,
    REFUSAL_END,
    REFUSAL_START,
    append_error,
    append_note,
    append_progress,
    drop_refusal_notes,
    recent_errors,
    rotation_note,
)

NOW = 1_800_000_000.0


@dataclass(frozen=True)
class Fault:
    kind: str
    message: str


def test_progress_starts_with_its_header_and_takes_one_line_per_entry(tmp_path: Path) -> None:
    path = tmp_path / "progress.md"
    append_progress(path, "rotation 1 [IMPLEMENT] a:\n DONE", NOW)
    append_progress(path, "rotation 2 \x1b[31mred\x1b[0m", NOW)
    text = path.read_text()
    assert text.startswith(PROGRESS_HEADER) and text.count(PROGRESS_HEADER) == 1
    lines = text[len(PROGRESS_HEADER) :].splitlines()
    assert len(lines) == 2 and lines[0].endswith("rotation 1 [IMPLEMENT] a: DONE")
    assert "\x1b" not in lines[1]  # an escape sequence is shown, never acted on


def test_the_next_prompt_sees_the_last_errors_only(tmp_path: Path) -> None:
    path = tmp_path / "errors.log"
    assert recent_errors(path) == ()
    for n in range(7):
        append_error(path, f"rotation {n} failed", NOW)
    assert [line.split(" ", 1)[1] for line in recent_errors(path, 2)] == [
        "rotation 5 failed",
        "rotation 6 failed",
    ]


def test_a_rotation_that_ended_well_leaves_no_note() -> None:
    assert rotation_note("DONE", None, None, 3, "log") is None
    failed = rotation_note("ERROR", "exit code 1", None, 3, "h/003.log")
    assert failed == "rotation 3 failed (exit code 1); check its log h/003.log and carry on."
    overflow = rotation_note("ERROR", "x", Fault("overflow", "too long"), 3, "log")
    assert overflow is not None and "ran out of context (too long)" in overflow


def test_refusal_notes_move_out_of_the_handoff_once_a_done_passed(tmp_path: Path) -> None:
    handoff, keep = tmp_path / "handoff.md", tmp_path / "kept.md"
    handoff.write_text("# my notes\n")
    refusal = f"rotation 2: {REFUSAL_START} the tests fail. {REFUSAL_END}"
    append_note(handoff, refusal)
    append_note(handoff, "rotation 3 failed (x); check its log l and carry on.")
    assert drop_refusal_notes(handoff, keep)
    assert REFUSAL_START not in handoff.read_text()
    assert "# my notes" in handoff.read_text() and "rotation 3 failed" in handoff.read_text()
    assert refusal in keep.read_text()  # kept on record, not lost
    assert not drop_refusal_notes(handoff, keep)  # the control: nothing left to move
