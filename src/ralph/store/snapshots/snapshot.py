"""A snapshot of the project's tracked files, its JSON, and the Changes between two.

store/snapshots/snapshotter.py takes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ralph.errors import StateError
from ralph.store.repository.git import HEAD_RE
from ralph.store.snapshots.fingerprint import DELETED

SNAPSHOT_FORMAT = 1

# Never a real fingerprint: stands for "whatever HEAD holds" in `diff_entries`.
_AT_HEAD = "(as in HEAD)"
_ZERO_ID_RE = re.compile(r"0{40}(?:0{24})?\Z")
_SNAPSHOT_HINT = (
    "delete snapshot.json in ralph's private store (<state folder>/ralph/projects/<project>-"
    "<hash>/, see docs/explanation/guarantees.md): ralph takes a new one, but cannot tell "
    "what changed while it was not running"
)


@dataclass(frozen=True)
class Snapshot:
    """The tracked files at one moment: in git mode HEAD plus the dirty paths, else every file."""

    kind: Literal["git", "walk"]
    head: str | None  # HEAD commit in git mode, "" before the first commit; None in walk mode
    entries: Mapping[str, str]  # root-relative posix path -> fingerprint

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict that `from_json` turns back into an equal snapshot."""
        entries: dict[str, str] = {}
        raw: dict[str, str] = {}
        for path, fingerprint in self.entries.items():
            if _is_unicode(path):
                entries[path] = fingerprint
            else:
                # Names that are not UTF-8 come back from os.fsdecode with lone surrogates,
                # which not every JSON writer accepts: store their bytes instead.
                raw[path.encode("utf-8", "surrogatepass").hex()] = fingerprint
        data: dict[str, Any] = {
            "format": SNAPSHOT_FORMAT,
            "kind": self.kind,
            "head": self.head,
            "entries": entries,
        }
        if raw:
            data["raw_entries"] = raw
        return data

    @classmethod
    def from_json(cls, data: Any) -> Snapshot:
        if not isinstance(data, dict):
            raise _invalid("not a JSON object")
        if data.get("format") != SNAPSHOT_FORMAT:
            raise _invalid(f"unknown format {data.get('format')!r}")
        kind = data.get("kind")
        head = data.get("head")
        if kind == "walk":
            if head is not None:
                raise _invalid("a walk snapshot has no HEAD")
        elif kind == "git":
            if not isinstance(head, str) or not HEAD_RE.match(head):
                raise _invalid(f"bad HEAD {head!r}")
        else:
            raise _invalid(f"unknown kind {kind!r}")
        entries = _str_mapping(data.get("entries"), "entries")
        for key, fingerprint in _str_mapping(data.get("raw_entries", {}), "raw_entries").items():
            try:
                path = bytes.fromhex(key).decode("utf-8", "surrogatepass")
            except ValueError:
                raise _invalid(f"bad raw entry {key!r}") from None
            entries[path] = fingerprint
        return cls(kind=kind, head=head, entries=entries)


@dataclass(frozen=True)
class Changes:
    """What differs between two snapshots; false when nothing does."""

    paths: tuple[str, ...]  # sorted, root-relative; pseudo paths in parentheses stand for "all"

    def __bool__(self) -> bool:
        return bool(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def diff_entries(
    before: Mapping[str, str],
    after: Mapping[str, str],
    commit_changes: Mapping[str, tuple[str, str]] | None = None,
) -> Changes:
    """Paths whose content differs; `commit_changes` maps path -> (old blob, new blob) when
    HEAD moved between the snapshots, since a clean path then means "as in the new HEAD"."""
    if commit_changes is None:
        changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        return Changes(tuple(sorted(changed)))
    changed = set()
    for path in commit_changes.keys() | before.keys() | after.keys():
        old_blob, new_blob = commit_changes.get(path, (_AT_HEAD, _AT_HEAD))
        old = before[path] if path in before else _blob_or_deleted(old_blob)
        new = after[path] if path in after else _blob_or_deleted(new_blob)
        if old != new:
            changed.add(path)
    return Changes(tuple(sorted(changed)))


def _blob_or_deleted(blob: str) -> str:
    return DELETED if _ZERO_ID_RE.match(blob) else blob


def _is_unicode(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _str_mapping(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _invalid(f"{what} must map strings to strings")
    return dict(value)


def _invalid(reason: str) -> StateError:
    return StateError(f"saved snapshot: not a valid snapshot ({reason})", _SNAPSHOT_HINT)
