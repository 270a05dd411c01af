"""run/sink.py: the run's one event sink. Every event is redacted, shown, then recorded; facts
reach the recorder and the observers, never a display; a display that breaks is dropped; while a
person decides, the displays wait and the recorder does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pluggy
import pytest

from ralph.plugins import hookspecs
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import Plugins
from ralph.rules.text.redact import Redactor
from ralph.run.escalation import Choice, Decide, Escalation
from ralph.run.events import AgentOutput, CancelRequested, Event, Notice, RunEnded
from ralph.run.facts import SpecBlocked, WaitStarted
from ralph.run.observers import Observers
from ralph.run.recorder import Recorder
from ralph.run.sink import Sink
from ralph.store.disk.workspace import Workspace

SECRET = "hunter2-swordfish-42"
ENDED = RunEnded(0, "all specs verified", 3, 3, 20, ())


def _sink(tmp_path: Path, shown: list[Event], decide: Decide | None = None, **more: object) -> Sink:
    ws = Workspace(tmp_path)
    ws.ensure()
    recorder = Recorder(ws, ["scripted"], "round-robin")
    return Sink(shown.append, recorder, Redactor([SECRET]), decide, **more)  # type: ignore[arg-type]


def _recorded(sink: Sink) -> list[str]:
    return [r["event"] for r in sink.recorder.records]


def test_an_event_is_redacted_before_it_is_shown_or_recorded(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink = _sink(tmp_path, shown)
    sink.emit(Notice("warning", f"the key is {SECRET}"))
    sink.emit(SpecBlocked("specs/a.spec.md", f"leaked {SECRET}"))
    assert shown == [Notice("warning", "the key is [REDACTED]")]
    [blocked] = [r for r in sink.recorder.records if r["event"] == "spec_blocked"]
    assert SECRET not in str(blocked) and "[REDACTED]" in blocked["reason"]


def test_agent_output_is_not_scrubbed_again(tmp_path: Path) -> None:
    """It was redacted where it entered ralph: the sink passes it on as it is."""
    shown: list[Event] = []
    output = AgentOutput("stdout", (f"already passed: {SECRET}",))
    _sink(tmp_path, shown).emit(output)
    assert shown == [output] and shown[0] is output


class _Heard:
    """An observer plugin: what it hears, and (when `broken`) it raises at each."""

    def __init__(self, broken: bool = False) -> None:
        self.heard: list[dict[str, Any]] = []
        self.broken = broken

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        self.heard.append(event)
        if self.broken:
            raise RuntimeError("webhook down")

    @hookimpl
    def ralph_escalation_asked(self, event: dict[str, Any]) -> None:
        self.heard.append(event)


def _observers(plugin: _Heard) -> Observers:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.register(plugin, name="heard")
    return Observers(Plugins(pm, {}, [], set()))


def test_facts_are_recorded_and_heard_never_shown(tmp_path: Path) -> None:
    shown: list[Event] = []
    heard = _Heard()
    sink = _sink(tmp_path, shown, observe=_observers(heard))
    sink.emit(WaitStarted(10.0, "rate limited"))
    sink.emit(Notice("info", "shown"))  # the control: an event is shown
    assert shown == [Notice("info", "shown")]
    assert [e["event"] for e in heard.heard] == ["wait_started", "notice"]
    assert _recorded(sink) == ["wait"]


def test_an_observer_that_fails_changes_nothing(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink = _sink(tmp_path, shown, observe=_observers(_Heard(broken=True)))
    sink.emit(WaitStarted(10.0, "rate limited"))
    sink.emit(WaitStarted(20.0, "rate limited"))
    assert _recorded(sink).count("wait") == 2  # both recorded, the run went on
    assert [n.message for n in shown if isinstance(n, Notice)] == [
        "plugin heard: ralph_event raised RuntimeError: webhook down; left out, the run goes on"
    ]


def test_an_escalation_is_heard_before_the_choice_and_redacted(tmp_path: Path) -> None:
    """Someone may have to come and choose: the observers (the webhook) hear of it first."""
    heard = _Heard()
    order: list[str] = []

    def decide(e: Escalation) -> Choice:
        order.append(f"decided after {len(heard.heard)} heard")
        return "continue"

    sink = _sink(tmp_path, [], decide, observe=_observers(heard))
    e = Escalation("specs/a.spec.md", 3, (f"leaked {SECRET}",), 0.0)
    assert sink.decide(e) == "continue"
    assert order == ["decided after 1 heard"]
    (asked,) = heard.heard
    assert (asked["event"], asked["subject"], asked["failures"]) == (
        "escalation_asked",
        "specs/a.spec.md",
        3,
    )
    assert asked["reasons"] == ["leaked [REDACTED]"]


def test_a_display_that_cannot_write_is_dropped_and_the_run_goes_on(tmp_path: Path) -> None:
    calls: list[Event] = []

    def closed(event: Event) -> None:
        calls.append(event)
        raise BrokenPipeError

    ws = Workspace(tmp_path)
    ws.ensure()
    sink = Sink(closed, Recorder(ws, ["scripted"], "round-robin"), Redactor(), None)
    sink.emit(Notice("info", "one"))
    sink.emit(Notice("info", "two"))  # not tried again
    sink.emit(ENDED)
    assert calls == [Notice("info", "one")]
    assert _recorded(sink) == ["run_end"]  # still recorded


def test_a_display_s_other_errors_are_not_swallowed(tmp_path: Path) -> None:
    def wrong(event: Event) -> None:
        raise ValueError("a bug in the display")

    ws = Workspace(tmp_path)
    ws.ensure()
    sink = Sink(wrong, Recorder(ws, ["scripted"], "round-robin"), Redactor(), None)
    with pytest.raises(ValueError, match="a bug in the display"):
        sink.emit(Notice("info", "one"))


def test_a_cancel_seen_after_the_run_ended_is_dropped(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink = _sink(tmp_path, shown)
    sink.emit(CancelRequested("after"))  # the control: before the end, it is shown
    assert not sink.ended
    sink.emit(ENDED)
    sink.emit(CancelRequested("now"))
    assert sink.ended
    assert shown == [CancelRequested("after"), ENDED]


def test_held_events_are_recorded_at_once_and_shown_in_order_on_release(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink = _sink(tmp_path, shown)
    again = Notice("warning", "read this before the end")
    sink.hold(again)
    sink.emit(Notice("info", "one"))
    sink.emit(SpecBlocked("specs/a.spec.md", "stuck"))
    sink.emit(Notice("info", "two"))
    assert shown == []
    assert _recorded(sink) == ["spec_blocked"]  # the recorder does not wait
    sink.release()
    assert shown == [Notice("info", "one"), Notice("info", "two"), again]
    sink.emit(Notice("info", "three"))  # released: shown at once
    assert shown[-1] == Notice("info", "three")


def test_the_run_s_end_releases_the_displays_and_is_shown_last(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink = _sink(tmp_path, shown)
    again = Notice("warning", "what a person must read")
    sink.hold(again)
    sink.emit(Notice("info", "meanwhile"))
    sink.emit(ENDED)
    assert shown == [Notice("info", "meanwhile"), again, ENDED]


def test_headless_without_a_decider_aborts(tmp_path: Path) -> None:
    escalation = Escalation("specs/a.spec.md", 3, ("failed",), 0.0)
    assert _sink(tmp_path, []).decide(escalation) == "abort"


def test_while_a_person_decides_the_displays_wait(tmp_path: Path) -> None:
    shown: list[Event] = []
    sink: Sink

    def person(e: Escalation) -> Choice:
        sink.emit(Notice("info", "another lane's line"))  # comes while the person reads
        assert shown == []
        return "continue"

    sink = _sink(tmp_path, shown, decide=person)
    escalation = Escalation("specs/a.spec.md", 3, ("failed",), 0.0)
    assert sink.decide(escalation) == "continue"
    assert shown == [Notice("info", "another lane's line")]  # shown once they answered


def test_a_decision_inside_a_hold_leaves_it_held(tmp_path: Path) -> None:
    """A lane's question already holds the displays: a decision meanwhile does not release
    them."""
    shown: list[Event] = []
    sink = _sink(tmp_path, shown, decide=lambda e: "accept")
    sink.hold()
    assert sink.decide(Escalation(None, 2, (), 0.0)) == "accept"
    sink.emit(Notice("info", "still waiting"))
    assert shown == []
    sink.release()
    assert shown == [Notice("info", "still waiting")]
