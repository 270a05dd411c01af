"""ui/story.py: a run told as a story for the HTML report."""

from __future__ import annotations

from ralph.rules.runtotals import run_totals
from ralph.store.runstory import RunRecords
from ralph.ui.story import story_of
from tests.sample_records import lanes_run


def test_a_merge_drop_is_on_the_counter_path() -> None:
    story = story_of(RunRecords("p", tuple(lanes_run())))
    paths = {s.path: s.counter for s in story.specs}
    assert paths["b"] == ((2, 3), (2, 2), (3, 3))  # 3/3, the merge after #2 drops it, 3/3
    assert paths["a"] == ((1, 1),)


def test_the_story_counts_what_the_run_totals_count() -> None:
    records = lanes_run()
    story = story_of(RunRecords("p", tuple(records)))
    totals = run_totals(records)
    assert story.totals == totals
    assert (totals.rotations, totals.usage.input_tokens) == (3, 111)
    assert round(totals.checks_s, 3) == 0.3 and round(totals.agent_s, 3) == 1.2
