"""Only a person may change a spec's checks: front matter an agent wrote is noticed and its
DONEs refused until a person restores or accepts it.

The mark kept in the state is the hash of the front matter the agent wrote; it is forgotten
once the front matter on disk is something else (a person changed it).
"""

from __future__ import annotations

from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.counts.frontmark import FrontSeen
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.specset import UNREADABLE, front_digest
from ralph.specs.frontmatter import split_front_matter
from ralph.store.disk import reader


def front_seen(root: Path, spec: Spec) -> FrontSeen | None:
    """After a rotation on `spec` (its text as the rotation began): its front matter on disk;
    None when it cannot be read."""
    now = _read(root, root / spec.path)
    if now is None:
        return None
    front = _front(now)
    return FrontSeen(_digest(front), front != _front(spec.text))


def agent_change(root: Path, spec: Spec, mark: str | None) -> str | None:
    """Why a DONE on `spec` is refused for its front matter's author, or None."""
    now = _read(root, root / spec.path)
    if now is not None and _front(now) != _front(spec.text):
        return (
            "the agent changed the spec's front matter (its checks) during the "
            "rotation; only a person may change them"
        )
    if mark == _digest(_front(spec.text)):
        return (
            "it was last changed by an agent, not a person: restore it, or accept it with "
            "`ralph accept` (or by editing it yourself)"
        )
    return None


def agent_front(spec: Spec, mark: str | None) -> str | None:
    """The front matter of `spec` (as read now) when an agent wrote it and no person has
    accepted it: what `ralph accept` shows. "" when the agent removed it; None: nothing waits."""
    if mark is None or mark != _digest(_front(spec.text)):
        return None
    return _front(spec.text) or ""


def front_digests(root: Path) -> dict[str, str]:
    """Every spec on disk with the digest of its front matter (rules/counts/specset.py)."""
    from ralph.specs.discovery import find_spec_paths

    found: dict[str, str] = {}
    for path in find_spec_paths(root):
        text = _read(root, root / path)
        found[path] = UNREADABLE if text is None else _digest(_front(text))
    return found


def _read(root: Path, path: Path) -> str | None:
    try:  # the one reader: a pipe or a link out of the project reads as unreadable
        return reader.read_text(path, limit=reader.TEXT_LIMIT, root=root, follow=True, missing=None)
    except (OSError, RalphError):
        return None


def _digest(front: str | None) -> str:
    return front_digest(front)


def _front(text: str) -> str | None:
    try:
        return split_front_matter(text)[0]
    except ValueError:
        return "(unclosed)"
