"""The specs a person wrote: the run is never verified with fewer or weaker specs than that.

What ralph keeps is each spec's path with the digest of its front matter (its checks), as a
person left them. A spec that disappears during a run (deleted, or renamed to shed its checks)
or whose front matter changes during a run is the agent's doing: it waits for a person
(`ralph accept`), and every DONE is refused meanwhile. What changed while no run was running
is a person's, and becomes the record at the start of the next run. New specs are welcome:
more to verify weakens nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

Digests = Mapping[str, str]  # spec path -> digest of its front matter

UNREADABLE = "(unreadable)"


def front_digest(front: str | None) -> str:
    """The digest of a spec's front matter as text (None and "" alike: no checks)."""
    return hashlib.sha256((front or "").encode()).hexdigest()


def take_person_changes(
    record: Digests | None, disk: Digests, changed: tuple[str, ...] | None
) -> dict[str, str]:
    """At the start of a run: the record, with what a person changed while no run was running
    (`changed`: the files that differ from the last run's end; None: unknown, so nothing is
    taken as a person's). A project with no record yet takes the specs as they are."""
    if record is None:
        return dict(disk)
    updated = dict(record)
    for path in changed or ():
        if path in disk:
            updated[path] = disk[path]
        else:
            updated.pop(path, None)
    return updated


def waiting(record: Digests | None, disk: Digests, active: str | None = None) -> list[str]:
    """The changes to the person's specs that wait for a person, one line each. The active
    spec's own front matter is left to its own guard (checks/authorship.py)."""
    if record is None:
        return []
    out: list[str] = []
    for path, digest in sorted(record.items()):
        if path not in disk:
            out.append(f"{path} was removed or renamed during a run")
        elif disk[path] != digest and path != active:
            out.append(f"{path}: its front matter (its checks) was changed during a run")
    return out


def accept(record: Digests | None, disk: Digests, paths: tuple[str, ...]) -> dict[str, str]:
    """A person accepts the specs at `paths` as they are now (gone: no longer recorded)."""
    updated = dict(record or disk)
    for path in paths:
        if path in disk:
            updated[path] = disk[path]
        else:
            updated.pop(path, None)
    return updated


def summary(held: list[str]) -> str:
    """The first change that waits, and how many more."""
    return held[0] + (f" (and {len(held) - 1} more)" if len(held) > 1 else "")
