"""plugins/otel.py: when traces are on, and the span tree the run's payloads make (one trace,
a span per spec, rotation, check and final verification; refusals, questions and escalations
as events; the trace context for the agent; nothing secret in an attribute)."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.plugins import otel

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)


def test_traces_are_on_only_when_asked_for() -> None:
    assert not otel.wanted({}, flag=False)  # the control: nothing said, nothing traced
    assert otel.wanted({}, flag=True)
    assert otel.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, flag=False)
    assert otel.wanted({"OTEL_TRACES_EXPORTER": "otlp"}, flag=False)
    assert not otel.wanted(
        {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "x"}, flag=False
    )
    assert not otel.wanted({"OTEL_SDK_DISABLED": "true"}, flag=True)


def test_the_plugin_module_imports_no_opentelemetry_until_traces_start() -> None:
    # read, not run: only the functions that start or feed the traces import it
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(otel))
    top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert names and not [n for n in names if n.startswith("opentelemetry")]


def _parent(span: ReadableSpan) -> int:
    assert span.parent is not None
    return span.parent.span_id


def _attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


SECRET = "sk-ant-" + "a" * 40


def _run(traces: otel.Traces) -> dict[str, str]:
    def send(event: str, ts: float, **fields: Any) -> None:
        traces.ralph_event({"schema_version": 1, "ts": ts, "event": event, **fields})

    send("run_started", 100.0, agent="claude", max_iterations=5, matrix=[{}, {}])
    send(
        "rotation_started",
        101.0,
        agent="claude",
        spec="specs/a.md",
        mode="IMPLEMENT",
        iteration=1,
        started_at=101.0,
        model="claude-sonnet-4",
        lane="a",
    )
    context = traces.ralph_trace_context({"spec": "specs/a.md", "iteration": 1})
    send(
        "check_ran",
        103.0,
        iteration=1,
        spec="specs/a.md",
        outcome={
            "name": "tests",
            "method": "external",
            "passed": False,
            "cached": False,
            "seconds": 1.0,
            "summary": f"key {SECRET} leaked",
        },
    )
    send(
        "rotation_ended",
        103.5,
        spec="specs/a.md",
        iteration=1,
        mode="IMPLEMENT",
        signal="REFUSED",
        note="tests failed",
        files_changed=2,
        done_count=0,
        elapsed=2.5,
        usage={"input_tokens": 10, "output_tokens": 20, "cost_usd": 0.01},
    )
    send("question_asked", 104.0, spec="specs/a.md")
    send(
        "escalated",
        104.5,
        key="k",
        subject="specs/a.md",
        choice="abort",
        failures=3,
        reasons=["x"],
        kind="breaker",
    )
    send(
        "rotation_started",
        105.0,
        agent="codex",
        spec="(all specs)",
        mode="VERIFY",
        iteration=2,
        started_at=105.0,
    )
    send("verification_started", 105.0, attempt=1, iteration=2, agent="codex")
    send(
        "verification_ended",
        106.0,
        attempt=1,
        iteration=2,
        passed=True,
        summary="ok",
        reasons=[],
        files_changed=0,
    )
    send(
        "rotation_ended",
        106.0,
        spec="(all specs)",
        iteration=2,
        mode="VERIFY",
        signal="VERIFY_PASS",
        files_changed=0,
        done_count=3,
        elapsed=1.0,
    )
    send("run_ended", 107.0, exit_code=0, reason="every spec verified", run_iteration=2)
    return context


def test_a_run_makes_one_trace_with_its_tree() -> None:
    exporter = InMemorySpanExporter()
    context = _run(otel.Traces(exporter))
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert set(spans) == {
        "ralph run",
        "spec specs/a.md",
        "rotation 1 IMPLEMENT",
        "check tests",
        "final verification",
    }
    assert len({s.context.trace_id for s in spans.values()}) == 1
    run, spec = spans["ralph run"], spans["spec specs/a.md"]
    rotation, check = spans["rotation 1 IMPLEMENT"], spans["check tests"]
    assert run.parent is None
    assert _parent(spec) == run.context.span_id
    assert _parent(rotation) == spec.context.span_id
    assert _parent(check) == rotation.context.span_id
    final = spans["final verification"]
    assert _parent(final) == run.context.span_id
    assert (_attrs(final)["ralph.passed"], _attrs(final)["ralph.attempt"]) == (True, 1)
    assert _attrs(final)["ralph.signal"] == "VERIFY_PASS"
    assert _attrs(rotation)["gen_ai.system"] == "anthropic"
    assert _attrs(rotation)["gen_ai.request.model"] == "claude-sonnet-4"
    assert _attrs(rotation)["gen_ai.usage.input_tokens"] == 10
    assert _attrs(rotation)["ralph.signal"] == "REFUSED"
    assert _attrs(rotation)["ralph.files_changed"] == 2
    assert (rotation.start_time, rotation.end_time) == (101 * 10**9, 103_500_000_000)
    assert [e.name for e in rotation.events] == ["refusal"]
    assert [e.name for e in spec.events] == ["question"]
    assert [e.name for e in run.events] == ["escalation"]
    assert _attrs(check)["ralph.check.method"] == "external"
    assert _attrs(check)["ralph.check.passed"] is False
    # the agent's TRACEPARENT names the rotation's span
    trace_id, span_id = f"{rotation.context.trace_id:032x}", f"{rotation.context.span_id:016x}"
    assert context["traceparent"].startswith(f"00-{trace_id}-{span_id}-")
    # nothing secret: the key's shape is redacted like the logs
    texts = [str(v) for s in spans.values() for v in _attrs(s).values()]
    assert not [t for t in texts if SECRET in t]
    assert "[REDACTED]" in _attrs(check)["ralph.check.summary"]


def test_a_run_started_inside_a_trace_joins_it() -> None:
    exporter = InMemorySpanExporter()
    parent = f"00-{'c' * 32}-{'d' * 16}-01"
    _run(otel.Traces(exporter, parent=parent))
    run = next(s for s in exporter.get_finished_spans() if s.name == "ralph run")
    assert f"{run.context.trace_id:032x}" == "c" * 32
    assert f"{_parent(run):016x}" == "d" * 16
