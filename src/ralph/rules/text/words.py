"""Counted words in messages: `1 rotation`, `2 rotations`, never `1 rotations`."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """`count word`, with an s unless the count is one."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
