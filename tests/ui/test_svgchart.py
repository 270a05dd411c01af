"""ui/svgchart.py: small charts drawn by ralph as inline SVG for the HTML report."""

from __future__ import annotations


def test_a_long_counter_path_is_drawn_from_its_latest_steps() -> None:
    from ralph.ui.svgchart import MAX_STEPS, counter_steps

    drawn = counter_steps(tuple((n, n % 4) for n in range(1, 5001)))  # label and title
    assert drawn.count("→") == 2 * (MAX_STEPS - 1) and "(#5000)" in drawn and "(#1)" not in drawn
