"""The HTML report's story of a run, from ralph's records: in a `--parallel` run the running
totals never go back and the counter paths show the 3/3 -> 2/3 drops merges caused; the run's
numbers are one function of the records; whatever a record holds, the page stays within its
size bound and nothing in it crashes the report (issues 28 and 30)."""

from __future__ import annotations


def test_a_long_counter_path_is_drawn_from_its_latest_steps() -> None:
    from ralph.ui.svgchart import MAX_STEPS, counter_steps

    drawn = counter_steps(tuple((n, n % 4) for n in range(1, 5001)))  # label and title
    assert drawn.count("→") == 2 * (MAX_STEPS - 1) and "(#5000)" in drawn and "(#1)" not in drawn
