"""The specs as the lanes have them: while a spec has a lane, the agent's own edits of it there
(ticked boxes, notes) are its changes, never a person's new requirements; a main-tree copy that
changed since the lane last took the user's branch is a person's edit, and that copy stays (its
spec then goes back to 0/3, as without lanes)."""

from __future__ import annotations

from pathlib import Path

from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.spec import Spec
from ralph.specs.discovery import read_spec
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import Repo


class LaneSpecs:
    """Reads each spec from its lane's worktree or the project's tree; what it learnt of a
    spec's main-tree copy is kept while nothing it depends on moved (a rescan follows every
    rotation)."""

    def __init__(self, repo: Repo, root: Path) -> None:
        self.repo = repo  # the project's tree
        self.root = root
        # whether the main tree's copy of a spec is the one its lane took, by what it depends on
        self._taken: dict[str, tuple[tuple[str, str], bool]] = {}

    def as_worked_on(self, lanes: Lanes, specs: list[Spec]) -> list[Spec]:
        """The specs, each with an open lane in `lanes` as its lane has it, unless a person
        edited its main-tree copy since the lane last took the user's branch."""
        found = [(spec, lanes.get(spec.path)) for spec in specs]
        heads = lane_heads(self.repo, self.root, [lane for _, lane in found if lane])
        worked: list[Spec] = []
        for spec, lane in found:
            if lane is not None and self._untouched(lane, spec, heads.get(lane.branch)):
                spec = read_spec(wt.lane_path(self.root, lane.name), spec.path) or spec  # noqa: PLW2901
            worked.append(spec)
        return worked

    def _untouched(self, lane: Lane, spec: Spec, heads: str | None) -> bool:
        """The main tree's copy is the one the lane took (`heads`: HEAD and the lane's branch
        now). When git cannot tell (it failed, or the lane's branch is gone), it is not: a
        spec wrongly taken as modified only costs rotations, a person's edit taken for the
        agent's would void nothing."""
        if heads is None or not (wt.lane_path(self.root, lane.name) / ".git").exists():
            return False
        key = (heads, spec.content_hash)
        known = self._taken.get(spec.path)
        if known is not None and known[0] == key:
            return known[1]
        same = wt.unchanged_since_taken(self.repo, lane.branch, spec.path)
        if same is None:
            return False
        self._taken[spec.path] = (key, same)
        return same


def lane_heads(r: Repo, root: Path, lanes: list[Lane]) -> dict[str, str]:
    """The commits of HEAD and of each lane's branch, as one key per branch: with one git
    command for all (a rescan follows every rotation); a missing branch has none."""
    branches = [lane.branch for lane in lanes if (wt.lane_path(root, lane.name) / ".git").exists()]
    if not branches:
        return {}
    out = wt.heads(r, "HEAD", *branches)
    if out is not None and len(lines := out.splitlines()) == len(branches) + 1:
        return {b: f"{lines[0]}\n{sha}" for b, sha in zip(branches, lines[1:], strict=True)}
    found = {b: wt.heads(r, "HEAD", b) for b in branches}  # one is missing: each alone
    return {b: key for b, key in found.items() if key is not None}
