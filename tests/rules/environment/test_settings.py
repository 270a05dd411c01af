"""Whose edit of ralph.yaml it is (rules/environment/settings.py): the rules alone, every case
(where the
private store is: tests/store/disk/test_private.py)."""

from __future__ import annotations

import pytest

from ralph.rules.environment.settings import Decision, Record, decide, diff_lines, visible

A, B = "agent: demo\n", "agent: other\n"


@pytest.mark.parametrize(
    ("record", "current", "live", "expected"),
    [
        # a first run records the file as it is
        (None, A, False, Decision(A, take=True, held=False)),
        (None, None, False, Decision(None, take=True, held=False)),
        # ... but not while another run holds the project (this one is refused)
        (None, A, True, Decision(A, take=False, held=False)),
        # the file a person accepted
        (Record(A, A), A, False, Decision(A, take=False, held=False)),
        # edited while no run was running: a person's, used at once
        (Record(A, A), B, False, Decision(B, take=True, held=False)),
        (Record(A, A), None, False, Decision(None, take=True, held=False)),
        # edited during the last run (ralph saw it so when that run ended): the agent's
        (Record(A, B), B, False, Decision(A, take=False, held=True)),
        (Record(None, B), B, False, Decision(None, take=False, held=True)),
        # the last run was killed: nothing tells when the edit was made, so it is held
        (Record(A, A, running=True), B, False, Decision(A, take=False, held=True)),
        # another run is live: its agent may be editing the file right now
        (Record(A, A), B, True, Decision(A, take=False, held=True)),
    ],
)
def test_whose_edit_it_is(
    record: Record | None, current: str | None, live: bool, expected: Decision
) -> None:
    assert decide(record, current, live=live) == expected


def test_control_characters_are_shown_as_escapes() -> None:
    assert visible("a\x1b[2Kb\x07c\td\u2028") == "a\\x1b[2Kb\\x07c\td\\u2028"
    lines = diff_lines("x: 1\n", "x: 2 \x1b]52;c;Zm9v\x07\n", "ralph.yaml")
    assert all("\x1b" not in line and "\x07" not in line for line in lines)
    assert "+x: 2 \\x1b]52;c;Zm9v\\x07" in lines
