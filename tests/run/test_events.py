"""run/events.py: what a display, the panel's view and the run report take from an event."""

from __future__ import annotations

from dataclasses import fields, make_dataclass

from ralph.run.events import RotationEnded, RunEnded, carried
from ralph.ui.panelview import PanelView, apply_event
from ralph.ui.runreport import RunReport


def test_an_event_s_fields_reach_the_view_and_the_report_by_name() -> None:
    """`carried`: the fields the view (or report) declares under the event's names, and only
    those; a field added to both an event and the view reaches the panel with nothing copied
    by hand. Control: a field only the event has stays out."""
    ended = RunEnded(0, "done", 4, 3, 20, ())
    assert carried(ended, RunReport) == {
        "exit_code": 0,
        "reason": "done",
        "iteration": 4,
        "max_iterations": 20,
        "costs": None,
        "totals": None,
    }
    assert "run_iteration" not in carried(ended, RunReport)  # the report derives its own
    assert "costs" not in carried(ended, PanelView, "costs")
    names = {f.name for f in fields(RotationEnded)}
    view = make_dataclass("View", [("files_changed", int), ("phase", str)])
    event = RotationEnded("a", "s", "IMPLEMENT", 1, 1, 9, "DONE", 3, 1, 0.5, None, (), ())
    assert "files_changed" in names and carried(event, view) == {"files_changed": 3}
    shown = apply_event(PanelView(), event)
    assert (shown.agent, shown.spec, shown.iteration, shown.elapsed) == ("a", "s", 1, 0.5)
