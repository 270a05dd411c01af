"""ui/story.py: a run told as a story for the HTML report."""

from __future__ import annotations

from typing import Any

from ralph.rules.runtotals import run_totals
from ralph.store.runstory import RunRecords
from ralph.ui.story import story_of


def _rotation(n: int, spec: str, done: int, tokens: int, **more: Any) -> list[dict[str, Any]]:
    start = {"ts": 1000.0 + n, "event": "rotation_start", "iteration": n, "spec": spec,
             "mode": "IMPLEMENT", "agent": "claude"}  # fmt: skip
    end = {"ts": 1000.5 + n, "event": "rotation_end", "iteration": n, "spec": spec,
           "signal": "DONE", "done_count": done, "agent_s": 0.4, "checks_s": 0.1,
           "seconds": 0.5, "input_tokens": tokens, "output_tokens": 0, "cost_usd": 0.01,
           "downgraded": [], **more}  # fmt: skip
    return [start, end]


def _lanes_run() -> list[dict[str, Any]]:
    """Two lanes: rotation 2 (b) ends before rotation 1 (a); then a's lane merges and b, at
    3/3, drops to 2/3."""
    r1, r2 = _rotation(1, "a", 1, 100), _rotation(2, "b", 3, 10)
    merge = {"ts": 1003.0, "event": "lane_merge", "spec": "a", "branch": "ralph/a",
             "into": "main", "downgraded": ["b"], "closes": True}  # fmt: skip
    return [
        {"ts": 1000.0, "event": "run_start", "agent": "claude"},
        r1[0], r2[0], r2[1], r1[1], merge, *_rotation(3, "b", 3, 1),
    ]  # fmt: skip


def test_a_merge_drop_is_on_the_counter_path() -> None:
    story = story_of(RunRecords("p", tuple(_lanes_run())))
    paths = {s.path: s.counter for s in story.specs}
    assert paths["b"] == ((2, 3), (2, 2), (3, 3))  # 3/3, the merge after #2 drops it, 3/3
    assert paths["a"] == ((1, 1),)


def test_the_story_counts_what_the_run_totals_count() -> None:
    records = _lanes_run()
    story = story_of(RunRecords("p", tuple(records)))
    totals = run_totals(records)
    assert story.totals == totals
    assert (totals.rotations, totals.usage.input_tokens) == (3, 111)
    assert round(totals.checks_s, 3) == 0.3 and round(totals.agent_s, 3) == 1.2
