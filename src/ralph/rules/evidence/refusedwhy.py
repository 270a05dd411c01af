"""Why a spec's last DONE was refused, as `ralph status` keeps it (pure): the refusal's own
reasons (which check, its first error line), without the words every refusal shares, bounded."""

from __future__ import annotations

PREFIX = "DONE refused: "
LIMIT = 300  # characters: a line of the status, not the whole report (`ralph history N` is)


def refusal(note: str | None) -> str | None:
    """The reasons of a refused rotation's `note`; None when it has none."""
    if not note:
        return None
    why = note.removeprefix(PREFIX).split(" (what a person can do:", 1)[0].strip()
    why = " ".join(why.split())  # one line, whatever the note held
    return why if len(why) <= LIMIT else why[: LIMIT - 1] + "\u2026"
