"""The lanes' registry as a value (rules/counts/lanes.py `Lanes`): each move, from a hand-built
registry, returns the next one and leaves the one it was given as it was."""

from __future__ import annotations

from ralph.rules.counts.laneregistry import Lane, Lanes

A, B, C = "specs/a.spec.md", "specs/b.spec.md", "specs/c.spec.md"


def registry() -> Lanes:
    return Lanes("main", (Lane(A), Lane(B, verified_tree="t1")), None, (C,))


def test_a_merge_is_recorded_before_git_runs_and_cleared_after() -> None:
    before = registry()
    started = before.merge_started(B)
    assert started.merging == B
    assert before.merging is None  # the value given is never changed
    assert started.merge_dropped() == before


def test_a_merge_that_closes_the_lane_forgets_it_and_remembers_it_merged() -> None:
    done = registry().merge_started(B).merge_done(B, closes=True)
    assert done.merging is None
    assert done.get(B) is None and done.get(A) == Lane(A)
    assert done.merged == (C, B)


def test_a_shared_merge_keeps_the_lane_open_and_counts_once() -> None:
    once = registry().merge_done(A, closes=False)
    twice = once.merge_done(A, closes=False)
    assert once.get(A) == Lane(A)
    assert once.merged == (C, A) and twice.merged == (C, A)


def test_a_conflict_names_the_specs_merged_meanwhile_and_voids_the_verified_tree() -> None:
    held = registry().conflicted(B, ("x.py",))
    assert held.get(B) == Lane(B, None, ("x.py",), (C,))
    assert held.conflicted(C, ("y.py",)) == held  # no lane of C: nothing to record
    resolved = held.resolved(B)
    assert resolved.get(B) == Lane(B)


def test_an_unchanged_lane_keeps_its_place_in_the_merge_queue() -> None:
    lanes = registry()
    assert lanes.resolved(A) is lanes  # no conflict to clear: the same registry
    assert [x.spec for x in lanes.verified(A, "t2").lanes] == [B, A]  # changed: last
    assert lanes.verified(B, "t1") is lanes


def test_the_run_sets_its_branch_and_a_verified_run_forgets_what_it_merged() -> None:
    lanes = Lanes().into("feature")
    assert lanes.integration == "feature"
    assert registry().finished().merged == ()
    assert registry().finished().lanes == registry().lanes
