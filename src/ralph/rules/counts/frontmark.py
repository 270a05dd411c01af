"""The mark a spec's state keeps of front matter an agent wrote (pure): its checks are a
person's to change, so while the mark stands every DONE of the spec is refused
(checks/authorship.py reads the front matter; this decides what the mark becomes)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FrontSeen:
    """A spec's front matter as a rotation left it on disk."""

    digest: str
    changed: bool  # it differs from the spec's text as the rotation began


def next_mark(seen: FrontSeen | None, mark: str | None) -> str | None:
    """The mark after a rotation (pure): front matter the agent wrote is remembered (its
    hash); the mark is forgotten once the front matter on disk is something else (a person
    changed it); unreadable, it stays."""
    if seen is None:
        return mark
    if seen.changed:
        return seen.digest
    if mark is not None and seen.digest != mark:
        return None
    return mark
