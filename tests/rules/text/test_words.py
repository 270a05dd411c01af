"""rules/text/words.py: counted words in messages."""

from __future__ import annotations

from ralph.rules.text.words import plural


def test_plural() -> None:
    assert [plural(n, "rotation") for n in (0, 1, 2)] == [
        "0 rotations",
        "1 rotation",
        "2 rotations",
    ]
