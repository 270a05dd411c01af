"""run/observers.py: observers hear each event and record as versioned JSON, cannot change
what ralph holds, and one that raises or hangs is left out, named, while the others go on."""

from __future__ import annotations

import threading
from typing import Any

import pluggy

from ralph.plugins import hookspecs
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import Plugins
from ralph.rules.counts.state import Tally
from ralph.run.events import AgentOutput, RotationEnded, RunStarted, SpecRow
from ralph.run.facts import Escalated, QuestionAsked
from ralph.run.observers import Observers, hooks_for, payload


def _plugins(*named: tuple[str, object]) -> Plugins:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, plugin in named:
        pm.register(plugin, name=name)
    return Plugins(pm, {}, [], set())


ROW = SpecRow("specs/a.md", 1, "DONE", True)


def _ended(signal: str, count: int, downgraded: tuple[str, ...] = ()) -> RotationEnded:
    return RotationEnded(
        *("demo", "specs/a.md", "IMPLEMENT", 4, 1, 10, signal, 2, count, 1.5, None),
        *(downgraded, (ROW,), Tally(1, 10, 20, 0.5, 0)),
    )


def test_each_record_calls_its_hooks_then_ralph_event() -> None:
    assert hooks_for(RunStarted("demo", 0, 10, ())) == ("ralph_run_started", "ralph_event")
    assert hooks_for(_ended("DONE", 3, ("specs/b.md",))) == (
        "ralph_done_counted",
        "ralph_rotation_ended",
        "ralph_spec_verified",
        "ralph_spec_dropped",
        "ralph_event",
    )
    assert hooks_for(_ended("REFUSED", 1))[0] == "ralph_done_refused"
    assert hooks_for(_ended("CONTINUE", 1)) == ("ralph_rotation_ended", "ralph_event")
    assert hooks_for(QuestionAsked("specs/a.md"))[0] == "ralph_question"
    assert hooks_for(Escalated("k", "s", "abort", 3, ()))[0] == "ralph_escalation"


def test_the_payload_is_versioned_json() -> None:
    data = payload(_ended("DONE", 2), 12.34567)
    assert (data["schema_version"], data["ts"], data["event"]) == (1, 12.346, "rotation_ended")
    assert data["usage"]["input_tokens"] == 10 and data["matrix"][0]["path"] == "specs/a.md"


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        self.seen.append(("event", event["event"]))

    @hookimpl
    def ralph_spec_verified(self, event: dict[str, Any]) -> None:
        self.seen.append(("verified", event["spec"]))


class _Meddler:
    @hookimpl
    def ralph_rotation_ended(self, event: dict[str, Any]) -> str:
        event["done_count"] = 3  # a copy: nobody else sees it
        event["matrix"].clear()
        return "verified"


def test_observers_hear_in_order_and_a_meddler_changes_nothing() -> None:
    recorder = _Recorder()
    observers = Observers(_plugins(("meddler", _Meddler()), ("recorder", recorder)))
    event = _ended("DONE", 3)
    assert observers(RunStarted("demo", 0, 10, ())) == []
    assert observers(AgentOutput("stdout", ("hi",))) == []  # output lines are nobody's
    assert observers(event) == []
    assert recorder.seen == [
        ("event", "run_started"),
        ("verified", "specs/a.md"),
        ("event", "rotation_ended"),
    ]
    assert event.done_count == 3 and event.matrix == (ROW,)  # frozen, and never touched


class _Raiser:
    calls = 0

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        _Raiser.calls += 1
        raise RuntimeError("broken")


class _Hanger:
    def __init__(self) -> None:
        self.release = threading.Event()

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        self.release.wait()


def test_a_plugin_that_raises_is_left_out_once_and_named() -> None:
    recorder = _Recorder()
    observers = Observers(_plugins(("raiser", _Raiser()), ("recorder", recorder)))
    assert observers(RunStarted("demo", 0, 10, ())) == [
        "plugin raiser: ralph_event raised RuntimeError: broken; left out, the run goes on"
    ]
    assert observers(_ended("CONTINUE", 1)) == []  # once: it is gone for the run
    assert _Raiser.calls == 1
    assert [kind for kind, _ in recorder.seen] == ["event", "event"]  # the other goes on


def test_a_plugin_that_hangs_is_given_up_on_at_the_limit() -> None:
    hanger = _Hanger()  # the only one timed: nothing else here must beat the short limit
    observers = Observers(_plugins(("hanger", hanger)), limit=0.1)
    try:
        assert observers(RunStarted("demo", 0, 10, ())) == [
            "plugin hanger: ralph_event took over 0.1 s; left out, the run goes on"
        ]
        assert observers(_ended("CONTINUE", 1)) == []
    finally:
        hanger.release.set()


class _Tracer:
    @hookimpl
    def ralph_trace_context(self, event: dict[str, Any]) -> dict[str, str]:
        return {
            "traceparent": f"00-{'a' * 32}-{'b' * 16}-01",
            "tracestate": "k=v\nINJECTED=1",  # not printable: dropped
            "PATH": "/evil",  # not a trace key: dropped
        }


def test_the_trace_context_passes_only_w3c_trace_keys() -> None:
    observers = Observers(_plugins(("tracer", _Tracer())))
    assert observers.trace_context("specs/a.md", 4, "IMPLEMENT") == {
        "TRACEPARENT": f"00-{'a' * 32}-{'b' * 16}-01"
    }
    assert Observers(_plugins()).trace_context("s", 1, "IMPLEMENT") == {}  # the control


def test_no_observer_no_observers() -> None:
    assert not Observers.wanted(_plugins())
    assert Observers.wanted(_plugins(("recorder", _Recorder())))
