"""store/live/openlanes.py: the lanes a project has open (from ralph's registry and the folders'
names, a lost record's too) and discarding them: each said, what is not ralph's left alone."""

from __future__ import annotations

from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.lanes import lane_name
from ralph.store.live.lanes import lanes_file, save_lanes
from ralph.store.live.openlanes import OpenLane, describe, discard_lanes, open_lanes
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import GitLock
from tests.conftest import Project

A, B = "specs/a.spec.md", "specs/b.spec.md"


def test_open_lanes_come_from_the_registry_and_the_folders(project: Project) -> None:
    root = project.root
    assert open_lanes(root) == []
    save_lanes(root, Lanes("main", (Lane(A),)))
    lost = lane_name(B)
    for name in (lost, "not-a-lane", lane_name(A)):
        (wt.lanes_folder(root) / name).mkdir(parents=True)
    assert open_lanes(root) == [OpenLane(lane_name(A), A), OpenLane(lost, None)]
    lanes_file(root).write_text("{damaged")
    assert open_lanes(root) == [OpenLane(lane_name(A), None), OpenLane(lost, None)]


def test_a_lane_is_shown_with_what_discarding_it_removes() -> None:
    lane = OpenLane(lane_name(A), A)
    assert describe(lane) == (
        f"{A}: worktree .ralph/worktrees/{lane.name}, branch ralph/{lane.name}"
    )
    assert describe(OpenLane(lane.name, None)).startswith("(its record was lost)")


def test_discarding_removes_ralphs_lanes_and_leaves_the_rest(git_project: Project) -> None:
    p = git_project
    p.write({".gitignore": ".ralph/\n", "app.py": "a\n"})
    p.git("checkout", "-q", "-b", "main")
    p.commit_all()
    r = wt.repo(p.root, GitLock())
    wt.add_worktree(r, p.root, lane_name(A), "main")
    mine = wt.lane_path(p.root, lane_name(B))
    mine.mkdir(parents=True)
    (mine / "keep.txt").write_text("the person's")
    save_lanes(p.root, Lanes("main", (Lane(A), Lane(B))))
    (p.root / ".ralph" / "lanes" / lane_name(A)).mkdir(parents=True)
    said = list(discard_lanes(p.root, open_lanes(p.root)))
    assert said[0].startswith(f"lane discarded: {A}")
    assert said[1].startswith(f"left as it is: .ralph/worktrees/{lane_name(B)}")
    assert not wt.lane_path(p.root, lane_name(A)).exists()
    assert (mine / "keep.txt").exists()
    assert not lanes_file(p.root).exists() and not (p.root / ".ralph" / "lanes").exists()
