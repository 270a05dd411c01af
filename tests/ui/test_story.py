"""ui/story.py: a run told as a story for the HTML report."""

from __future__ import annotations

from ralph.rules.counts.runtotals import run_totals
from ralph.store.records.runstory import RunRecords
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


def test_a_rotation_shows_the_lane_its_record_names_even_without_a_lane_open() -> None:
    records = (
        {"ts": 1.0, "event": "run_start", "agent": "x"},
        {"ts": 2.0, "event": "rotation_start", "iteration": 1, "spec": "a", "lane": "lane-a"},
        {"ts": 3.0, "event": "rotation_start", "iteration": 2, "spec": "b"},  # control
    )
    lanes = [r.lane for r in story_of(RunRecords("p", records)).rotations]
    assert lanes == ["lane-a", "main"]


def test_a_job_notes_how_each_earlier_run_ended_and_each_continued_part() -> None:
    records = (
        {"ts": 1.0, "event": "run_start", "agent": "x"},
        {"ts": 2.0, "event": "run_end", "exit_code": 5, "reason": "breaker"},
        {"ts": 3.0, "event": "run_start", "agent": "x"},
        {"ts": 4.0, "event": "run_start", "agent": "x", "continues": True},
        {"ts": 5.0, "event": "run_end", "exit_code": 0, "reason": "verified"},
    )
    story = story_of(RunRecords("p", records, job=True))
    assert story.runs == 2 and story.exit_code == 0
    assert story.notes[0] == "run 1 ended (exit 5): breaker"
    assert story.notes[1].startswith("run 2: ralph was killed; the run went on with --continue")
    assert len(story.notes) == 2  # the last run's end is the story's outcome, not a note
