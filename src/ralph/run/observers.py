"""What the observer plugins hear of a run: each event and fact of the run's one stream (the
agent's output lines excepted), as a JSON payload, to the hooks that want it.

Each plugin gets a fresh copy of the payload (plain JSON values, secrets already redacted by
the sink) and what it returns is ignored: an observer cannot change a verdict, a count or what
a check reads. Its calls run on a thread of its own with a time limit: one that raises or hangs
is left out for the rest of the run, with one line naming it; the run goes on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from ralph.plugins.contained import LIMIT, Failed, Worker
from ralph.plugins.hookspecs import OBSERVERS
from ralph.plugins.manager import Plugins
from ralph.rules.counts.state import MAX_COUNT
from ralph.run.escalation import Escalation
from ralph.run.events import AgentOutput, Event, RotationEnded, event_fields, event_name
from ralph.run.facts import Escalated, Fact, QuestionAsked, VerificationEnded, WaitStarted
from ralph.schemas.catalog import SCHEMA_VERSION

# the hook each kind of record calls besides `ralph_event` (a rotation's end: see `hooks_for`)
_HOOKS: dict[str, str] = {
    "RunStarted": "ralph_run_started",
    "RotationStarted": "ralph_rotation_started",
    "RunEnded": "ralph_run_ended",
    QuestionAsked.__name__: "ralph_question",
    Escalated.__name__: "ralph_escalation",
    WaitStarted.__name__: "ralph_limit_reached",
    VerificationEnded.__name__: "ralph_final_verification",
}
TRACE_KEYS = {"traceparent": "TRACEPARENT", "tracestate": "TRACESTATE"}


def hooks_for(event: Event | Fact) -> tuple[str, ...]:
    """The observer hooks `event` calls, in order (`ralph_event` last)."""
    if isinstance(event, RotationEnded):
        found = []
        if event.signal == "DONE":
            found.append("ralph_done_counted")
        elif event.signal == "REFUSED":
            found.append("ralph_done_refused")
        found.append("ralph_rotation_ended")
        if event.signal == "DONE" and event.done_count >= MAX_COUNT:
            found.append("ralph_spec_verified")
        if event.downgraded:
            found.append("ralph_spec_dropped")
        return (*found, "ralph_event")
    hook = _HOOKS.get(type(event).__name__)
    return ("ralph_event",) if hook is None else (hook, "ralph_event")


def payload(event: Event | Fact, ts: float) -> dict[str, Any]:
    """The JSON every hook gets: versioned like `--output json`'s lines, the event's fields."""
    return {
        "schema_version": SCHEMA_VERSION,
        "ts": round(ts, 3),
        "event": event_name(event),
        **event_fields(event),
    }


class Observers:
    """The run's observer plugins, called from the sink for each event and fact."""

    def __init__(
        self,
        found: Plugins,
        limit: float = LIMIT,
        clock: Callable[[], float] = time.time,
        scoped: tuple[str, ...] = (),
    ) -> None:
        self._found = found
        self._scoped = scoped  # plugins made for this run only (its traces): gone at `close`
        self._limit = limit
        self._clock = clock
        self._workers: dict[str, Worker] = {}
        self._gone: set[str] = set()

    @staticmethod
    def wanted(found: Plugins) -> bool:
        """Whether any plugin observes (no observer: the run calls nothing, costs nothing)."""
        hooks = found.manager.hook
        return any(getattr(hooks, h).get_hookimpls() for h in (*OBSERVERS, "ralph_trace_context"))

    def __call__(self, event: Event | Fact) -> list[str]:
        """Tell the plugins; the warning lines of those left out now."""
        if isinstance(event, AgentOutput):
            return []
        text = json.dumps(payload(event, self._clock()))
        said: list[str] = []
        for hook in hooks_for(event):
            for _, result in self._call(hook, text, said):
                del result  # what an observer returns is never read
        return said

    def close(self) -> None:
        """The run is over: the plugins made for it are unregistered."""
        for name in self._scoped:
            self._found.drop_own(name)

    def asked(self, e: Escalation) -> list[str]:
        """A person's choice is awaited (before it is made): `ralph_escalation_asked`; the
        warning lines of those left out now."""
        event = {
            "schema_version": SCHEMA_VERSION,
            "ts": round(self._clock(), 3),
            "event": "escalation_asked",
            "key": e.key,
            "subject": e.subject,
            "failures": e.failures,
            "reasons": list(e.reasons),
            "kind": e.kind,
        }
        said: list[str] = []
        self._call("ralph_escalation_asked", json.dumps(event), said)
        return said

    def trace_context(self, spec: str, iteration: int, mode: str) -> dict[str, str]:
        """TRACEPARENT and TRACESTATE for the agent of this rotation, as a plugin gives them
        (W3C trace context: any other key is dropped, and values must be printable ASCII)."""
        text = json.dumps({"spec": spec, "iteration": iteration, "mode": mode})
        env: dict[str, str] = {}
        for _, result in self._call("ralph_trace_context", text, []):
            if isinstance(result, dict):
                for key, name in TRACE_KEYS.items():
                    value = result.get(key)
                    if isinstance(value, str) and value.isascii() and value.isprintable():
                        env.setdefault(name, value[:512])
        return env

    def _call(self, hook: str, text: str, said: list[str]) -> list[tuple[str, Any]]:
        found: list[tuple[str, Any]] = []
        for impl in getattr(self._found.manager.hook, hook).get_hookimpls():
            name = impl.plugin_name
            if name in self._gone:
                continue
            worker = self._workers.get(name)
            if worker is None:
                worker = self._workers[name] = Worker(name)
            result = worker.call(impl.function, {"event": json.loads(text)}, self._limit)
            if isinstance(result, Failed):
                self._gone.add(name)
                said.append(self._found.warn(name, f"{hook} {result.reason}", printed=False))
            else:
                found.append((name, result))
        return found
