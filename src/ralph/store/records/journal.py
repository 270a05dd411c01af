"""progress.md, errors.log and ralph's notes in handoffs: the human-readable record of a run.

progress.md gets one line per rotation and per verification attempt; errors.log gets every
failure (failed rotations, refused DONEs, failed verifications, failed checks, the breaker
opening), and the next prompt shows its most recent lines so the agent can avoid them.
Both are append-only; ralph archives them when a run is verified. A note from ralph at the end
of a handoff tells the next rotation on that spec what happened.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Protocol

from ralph.rules.text.printable import clean_text, printable
from ralph.store.disk.files import append_text, read_text, write_text_atomic

PROGRESS_HEADER = "# Progress\n\nOne line per rotation and per verification attempt, by ralph.\n\n"
RECENT_ERRORS = 5  # lines of errors.log the next prompt shows


def stamp(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(now))


def _one_line(text: str) -> str:
    """One line a terminal shows as it is: a name's escape sequences become visible text."""
    return printable(" ".join(text.split()))


def append_progress(path: Path, line: str, now: float | None = None) -> None:
    head = "" if path.exists() else PROGRESS_HEADER
    append_text(path, f"{head}- {stamp(now)} {_one_line(line)}\n")


def append_error(path: Path, line: str, now: float | None = None) -> None:
    append_text(path, f"{stamp(now)} {_one_line(line)}\n")


def recent_errors(path: Path, limit: int = RECENT_ERRORS) -> tuple[str, ...]:
    """The last `limit` lines of errors.log (none when it does not exist)."""
    lines = [line for line in read_text(path).splitlines() if line.strip()]
    return tuple(lines[-limit:])


NOTE_HEAD = "\n\n> **Note from ralph:** "
REFUSAL_START = "your DONE was refused, because"
REFUSAL_END = "Fix them before you say DONE again."


VERIFY_FAILED_END = "Check this spec against it."


class Fault(Protocol):
    """An agent's fault as the note needs it (agents/result.AgentFault fits)."""

    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...


def rotation_note(
    signal_: str, note: str | None, fault: Fault | None, iteration: int, log: str
) -> str | None:
    """What the next rotation of the spec must know about this one, when it did not end well."""
    if fault is not None and fault.kind == "overflow":
        return (
            f"rotation {iteration} ran out of context ({fault.message}); its changes are kept. "
            "Start from this handoff, read only what the next step needs, and keep steps small."
        )
    if fault is not None and fault.kind == "rate_limit":
        return (
            f"rotation {iteration} was cut off by the agent's usage limit ({fault.message}); "
            f"its changes are kept. Check its log {log} and carry on from where it stopped."
        )
    if note is not None and signal_ == "ERROR":
        return f"rotation {iteration} failed ({note}); check its log {log} and carry on."
    return None


def verification_note(which: str, summary: str, report: str, log: str) -> str:
    """The note a failed final verification leaves in each spec's handoff."""
    return (
        f"{which} failed: {summary}. The verifier's report: {report}; its log: {log}. "
        + VERIFY_FAILED_END
    )


def drop_refusal_notes(path: Path, keep: Path) -> bool:
    """Move the notes that a DONE was refused from a handoff to `keep`, once a DONE passed:
    an old refusal read later would send the agent after checks that pass, and what the checks
    said stays on record. True when one was there."""
    return _move_notes(
        path, keep, r"rotation \d+: " + re.escape(REFUSAL_START), re.escape(REFUSAL_END)
    )


def drop_verification_notes(path: Path, keep: Path) -> bool:
    """Move the notes of failed final verifications from a handoff to `keep`, once one passed:
    the next agent would otherwise chase a verdict that no longer holds."""
    return _move_notes(
        path,
        keep,
        r"final verification \d+ \(rotation \d+\) failed: ",
        re.escape(VERIFY_FAILED_END),
    )


def _move_notes(path: Path, keep: Path, start: str, end: str) -> bool:
    text = read_text(path)  # refused when it leads outside the project
    if not text:
        return False
    pattern = re.compile(re.escape(NOTE_HEAD) + start + r".*?" + end + r"\n", re.DOTALL)
    moved = pattern.findall(text)
    if not moved:
        return False
    kept = pattern.sub("", text)
    append_text(keep, "".join(moved))
    write_text_atomic(path, kept)
    return True


def append_note(path: Path, note: str) -> None:
    """Add a note from ralph to a handoff, so the next rotation knows what happened."""
    append_text(path, f"{NOTE_HEAD}{clean_text(note)}\n")  # it may quote names and output
