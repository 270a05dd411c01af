"""Whose edit of `ralph.yaml` it is, and which settings a run uses (pure rules).

The settings decide how ralph judges (the sandbox, the agent command, the test command, the
checks, the breaker, the final verification): an agent's edit of them takes no effect until a
person accepts it with `ralph accept`. As for index flags and tests, the time of an edit tells
whose it is: one made while no ralph run was running is a person's, one made during a run (or
during a run that was killed, so ralph never saw the file again at its end) is the agent's.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# C0 and C1 control characters (tab aside), ESC included: shown as `\x1b`, never sent raw to a
# terminal, where a cursor movement could erase the very line a person is reviewing.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


@dataclass(frozen=True)
class Record:
    """What the private store keeps: the file as a person last accepted it and as ralph last
    saw it when a run ended (None: there was no file), and whether a run was on."""

    accepted: str | None
    seen: str | None
    running: bool = False


@dataclass(frozen=True)
class Decision:
    text: str | None  # the settings this run uses (None: no ralph.yaml, the defaults)
    take: bool  # the file on disk becomes the accepted one: a first run, or a person's edit
    held: bool  # the file differs from what a person accepted, and the edit is the agent's


def decide(record: Record | None, current: str | None, *, live: bool) -> Decision:
    """The settings of a run starting now, `current` being the file on disk.

    `live`: another run holds the project (this one will be refused): nothing is taken then,
    since the file may be in the middle of that run's agent's edits."""
    if record is None:
        return Decision(current, take=not live, held=False)
    if current == record.accepted:
        return Decision(current, take=False, held=False)
    if not live and not record.running and current != record.seen:
        return Decision(current, take=True, held=False)  # edited while no run was running
    return Decision(record.accepted, take=False, held=True)


def visible(text: str) -> str:
    """`text` with every control character shown as its escape (`\\x1b`), never sent raw."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def diff_lines(before: str | None, after: str | None, name: str) -> list[str]:
    """A unified diff of the accepted settings and the file now, control characters visible."""
    old = (before or "").splitlines()
    new = (after or "").splitlines()
    label_old = f"{name} (as a person accepted it)" if before is not None else "(no file)"
    label_new = f"{name} (now)" if after is not None else "(deleted)"
    lines = difflib.unified_diff(old, new, label_old, label_new, lineterm="", n=2)
    return [visible(line) for line in lines]
