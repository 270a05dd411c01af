"""The project's tree around rotations: snapshots, the spec files under `.ralph/specs/` that no
snapshot includes, what changed while ralph was not running, and the key of the check cache."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import StateError
from ralph.rules.counts.matrix import downgrade_verified
from ralph.rules.counts.state import State
from ralph.specs.discovery import find_spec_paths, spec_file_hash
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.repository.git import GitLock
from ralph.store.snapshots.snapshot import Changes, Snapshot
from ralph.store.snapshots.snapshotter import Snapshotter


@dataclass(frozen=True)
class Taken:
    """The tree after a rotation. A snapshot that failed counts as a change (`failure` says
    why): nothing unknown may pass for an unchanged tree."""

    after: Snapshot | None
    changes: Changes
    hidden: dict[str, str]
    failure: StateError | None


class Tree:
    def __init__(
        self, root: Path, snapshot_file: Path, own_files: tuple[str, ...], lock: GitLock
    ) -> None:
        self.root = root
        self.snapshot_file = snapshot_file  # the tree as of the last recorded rotation
        self.own_files = own_files
        self.snapshotter = Snapshotter(root, lock=lock)  # its git holds the run's `lock`
        self.hidden: dict[str, str] = {}  # hashes of the specs under .ralph/specs/
        self.start: Snapshot | None = None  # as the run (or the lane) began: `begin`

    def take(self) -> Snapshot:
        return self.snapshotter.take()

    def begin(self) -> Snapshot:
        """The tree as the run (or a lane) begins: what the agents change from here is
        theirs (`changed`)."""
        self.start = self.take()
        return self.start

    def changed(self) -> tuple[str, ...]:
        """The paths changed since `begin` (none before it): what a check asks of the agents'
        work."""
        if self.start is None:
            return ()
        return tuple(self.snapshotter.diff(self.start, self.take()).paths)

    def after(self, before: Snapshot) -> Taken:
        """What a rotation changed since `before`, the hidden spec files included."""
        failure: StateError | None = None
        after: Snapshot | None = None
        try:
            after = self.snapshotter.take()
            changes = self.snapshotter.diff(before, after)
        except StateError as exc:
            failure = exc
            changes = Changes((f"(snapshot failed: {exc.message})",))
        hidden = hidden_spec_hashes(self.root)
        return Taken(after, with_hidden_spec_changes(changes, self.hidden, hidden), hidden, failure)

    def pending_rules(self) -> list[str]:
        """What in the ignore rules waits for a person's say, as of the last snapshot."""
        return self.snapshotter.pending_rules()

    def key(self) -> str | None:
        """The tree as it is now, as a key for the check cache; None when unknown."""
        try:
            snap = self.snapshotter.take()
        except StateError:
            return None
        data = [snap.to_json(), hidden_spec_hashes(self.root)]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def compare_with_last_run(
        self, state: State, now: Snapshot
    ) -> tuple[State, tuple[str, ...], tuple[str, ...] | None]:
        """Files changed while ralph was not running: verified specs need one more review.
        Returns the state, the specs downgraded and the files that changed (None: unknown).

        A missing or unreadable snapshot proves nothing, so after a first rotation it counts
        as a change; only a project ralph never ran in has nothing to compare with.
        """
        self.hidden = hidden_spec_hashes(self.root)
        if not self.snapshot_file.exists() and state.iteration == 0:
            return state, (), ()
        try:
            data = load_json(self.snapshot_file, ".ralph/snapshot.json")
            if not isinstance(data, dict):
                raise StateError("snapshot.json: not an object")
            last = Snapshot.from_json(data.get("tree"))
            hidden = data.get("hidden_specs")
        except StateError:
            last, hidden = None, None
        changed: tuple[str, ...] | None = None
        if last is not None and isinstance(hidden, dict):
            diff = self.snapshotter.diff(last, now).paths
            moved = {
                p for p in hidden.keys() | self.hidden.keys() if hidden.get(p) != self.hidden.get(p)
            }
            changed = tuple(sorted({p for p in diff if p not in self.own_files} | moved))
            if not changed:
                return state, (), ()
        return (*downgrade_verified(state), changed)

    def save(self, snap: Snapshot, hidden: dict[str, str]) -> None:
        """The tree as of the last recorded rotation, with the specs no snapshot includes."""
        self.hidden = hidden
        write_json_atomic(self.snapshot_file, {"tree": snap.to_json(), "hidden_specs": hidden})


def hidden_spec_hashes(root: Path) -> dict[str, str]:
    """Spec files under `.ralph/specs/`: tracked files that no snapshot includes."""
    hashes: dict[str, str] = {}
    for path in find_spec_paths(root):
        if path.startswith(".ralph/"):
            digest = spec_file_hash(root, path)
            hashes[path] = digest if digest is not None else "(unreadable)"
    return hashes


def with_hidden_spec_changes(
    changes: Changes, before: dict[str, str], after: dict[str, str]
) -> Changes:
    """Add the spec files under `.ralph/specs/` that were edited, added or deleted."""
    moved = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if not moved:
        return changes
    return Changes(tuple(sorted(set(changes.paths) | moved)))


def changed_since_last_run(changed: tuple[str, ...] | None, dropped: tuple[str, ...]) -> str:
    """The warning for files changed between runs: which files (the first few), then which
    verified specs go back to 2/3, each said separately."""
    if changed is None:
        what = "the last run's snapshot is missing or unreadable, so any file may have changed"
    else:
        shown = ", ".join(changed[:5])
        more = f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        what = f"files changed since the last run: {shown}{more}"
    return f"{what}; verified specs back to 2/3 for one more review: {', '.join(dropped)}"
