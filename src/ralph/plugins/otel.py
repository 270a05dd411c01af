"""OpenTelemetry traces of a run, as a built-in observer plugin: one trace per run, a span per
spec, per rotation, per check and for the final verification (docs/explanation/traces.md).

On when `ralph run --otel` is given or the standard variables name an OTLP exporter
(OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_TRACES_EXPORTER=otlp),
and `ralph-spec-loop[otel]` is installed. Off, nothing here imports OpenTelemetry: a run
without an exporter costs what it did. What a span holds comes from the run's payloads, whose
secrets the sink already redacted; every text is passed through the redaction of the logs
again (the shapes of well-known keys) before it becomes an attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ralph.plugins.hookspecs import hookimpl
from ralph.rules.agents.vendor import vendor_of
from ralph.rules.text.redact import redactor

NAME = "ralph.plugins.otel"
_ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
INSTALL = "pip install 'ralph-spec-loop[otel]'"


def wanted(env: Mapping[str, str], flag: bool) -> bool:
    """Whether this run is traced: `--otel`, or an OTLP exporter named by the OTEL_* variables
    (and the SDK not switched off by OTEL_SDK_DISABLED)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = {e.strip() for e in env.get("OTEL_TRACES_EXPORTER", "").lower().split(",")}
    if "none" in exporters:
        return flag
    return flag or "otlp" in exporters or any(env.get(name, "").strip() for name in _ENDPOINTS)


def installed() -> bool:
    from importlib.util import find_spec

    try:
        return find_spec("opentelemetry.sdk") is not None
    except (ImportError, ValueError):
        return False


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


class Traces:
    """The plugin: spans opened and closed from the run's events, in order."""

    def __init__(self, exporter: Any = None, parent: str | None = None) -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from ralph import __version__

        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        resource = Resource.create({"service.name": "ralph", "service.version": __version__})
        self.provider = TracerProvider(resource=resource)
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("ralph", __version__)
        self._parent = parent  # the TRACEPARENT ralph itself was started with, if any
        self._scrub = redactor()
        self._run: Any = None
        self._specs: dict[str, Any] = {}
        self._rotations: dict[int, Any] = {}  # by iteration (the final verification's too)

    # ------------------------------------------------------------------ hooks

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        handle = getattr(self, f"_{event.get('event')}", None)
        if handle is not None:
            handle(event)

    @hookimpl
    def ralph_trace_context(self, event: dict[str, Any]) -> dict[str, str]:
        from opentelemetry.trace import set_span_in_context
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        span = self._rotations.get(event.get("iteration", -1))
        if span is None:
            return {}
        carrier: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(carrier, context=set_span_in_context(span))
        return carrier

    # ------------------------------------------------------------------ the spans

    def _attrs(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Attributes OpenTelemetry takes: None left out, texts redacted, lists of texts."""
        out: dict[str, Any] = {}
        for key, value in values.items():
            if value is None:
                continue
            if isinstance(value, str):
                out[key] = self._scrub.text(value)
            elif isinstance(value, (bool, int, float)):
                out[key] = value
            elif isinstance(value, (list, tuple)):
                out[key] = [self._scrub.text(str(v)) for v in value]
            else:
                out[key] = self._scrub.text(str(value))
        return out

    def _start(self, name: str, parent: Any, start: float, attrs: Mapping[str, Any]) -> Any:
        from opentelemetry.trace import set_span_in_context

        context = None if parent is None else set_span_in_context(parent)
        return self.tracer.start_span(
            name, context=context, start_time=_ns(start), attributes=self._attrs(attrs)
        )

    def _run_started(self, e: dict[str, Any]) -> None:
        context = None
        if self._parent:
            from opentelemetry.trace.propagation.tracecontext import (
                TraceContextTextMapPropagator,
            )

            context = TraceContextTextMapPropagator().extract({"traceparent": self._parent})
        attrs = {
            "ralph.agent": e.get("agent"),
            "ralph.max_iterations": e.get("max_iterations"),
            "ralph.specs": len(e.get("matrix") or ()),
        }
        self._run = self.tracer.start_span(
            "ralph run", context=context, start_time=_ns(e["ts"]), attributes=self._attrs(attrs)
        )

    def _spec(self, path: str, start: float, lane: str | None) -> Any:
        span = self._specs.get(path)
        if span is None:
            attrs = {"ralph.spec": path, "ralph.lane": lane}
            span = self._specs[path] = self._start(f"spec {path}", self._run, start, attrs)
        return span

    def _rotation_started(self, e: dict[str, Any]) -> None:
        start = e.get("started_at") or e["ts"]
        model = e.get("model")
        attrs = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.system": vendor_of(model, vendor_of(e.get("agent"))),
            "gen_ai.request.model": model,
            "gen_ai.agent.name": e.get("agent"),
            "ralph.agent": e.get("agent"),
            "ralph.mode": e.get("mode"),
            "ralph.iteration": e.get("iteration"),
            "ralph.lane": e.get("lane"),
        }
        if e.get("mode") == "VERIFY":  # the final verification: every spec's, under the run
            span = self._start("final verification", self._run, start, attrs)
        else:
            spec = self._spec(e["spec"], start, e.get("lane"))
            name = f"rotation {e.get('iteration')} {e.get('mode')}"
            span = self._start(name, spec, start, {**attrs, "ralph.spec": e["spec"]})
        self._rotations[e["iteration"]] = span

    def _check_ran(self, e: dict[str, Any]) -> None:
        parent = self._rotations.get(e.get("iteration", -1), self._run)
        outcome = e.get("outcome") or {}
        seconds = float(outcome.get("seconds") or 0.0)
        attrs = {
            "ralph.check.name": outcome.get("name"),
            "ralph.check.method": outcome.get("method"),
            "ralph.check.passed": outcome.get("passed"),
            "ralph.check.required": outcome.get("required"),
            "ralph.check.cached": outcome.get("cached"),
            "ralph.check.skipped": outcome.get("skipped"),
            "ralph.check.seconds": seconds,
            "ralph.check.summary": outcome.get("summary"),
        }
        span = self._start(f"check {outcome.get('name')}", parent, e["ts"] - seconds, attrs)
        span.end(end_time=_ns(e["ts"]))

    def _rotation_ended(self, e: dict[str, Any]) -> None:
        span = self._rotations.pop(e["iteration"], None)
        if span is None:
            return
        usage = e.get("usage") or {}
        span.set_attributes(
            self._attrs(
                {
                    "ralph.signal": e.get("signal"),
                    "ralph.outcome": e.get("signal"),
                    "ralph.files_changed": e.get("files_changed"),
                    "ralph.done_count": e.get("done_count"),
                    "ralph.elapsed": e.get("elapsed"),
                    "ralph.checks_seconds": e.get("checks"),
                    "ralph.note": e.get("note"),
                    "ralph.downgraded": e.get("downgraded") or None,
                    "gen_ai.usage.input_tokens": usage.get("input_tokens"),
                    "gen_ai.usage.output_tokens": usage.get("output_tokens"),
                    "ralph.cost_usd": usage.get("cost_usd"),
                }
            )
        )
        if e.get("signal") == "REFUSED":
            span.add_event("refusal", self._attrs({"ralph.reason": e.get("note")}), _ns(e["ts"]))
        start = span.start_time / 1e9 if span.start_time else e["ts"]
        span.end(end_time=_ns(start + float(e.get("elapsed") or 0.0)))

    def _question_asked(self, e: dict[str, Any]) -> None:
        span = self._specs.get(e.get("spec", ""), self._run)
        if span is not None:
            span.add_event("question", self._attrs({"ralph.spec": e.get("spec")}), _ns(e["ts"]))

    def _escalated(self, e: dict[str, Any]) -> None:
        if self._run is not None:
            attrs = {
                "ralph.subject": e.get("subject"),
                "ralph.choice": e.get("choice"),
                "ralph.kind": e.get("kind"),
                "ralph.failures": e.get("failures"),
                "ralph.reasons": e.get("reasons"),
            }
            self._run.add_event("escalation", self._attrs(attrs), _ns(e["ts"]))

    def _verification_started(self, e: dict[str, Any]) -> None:
        span = self._rotations.get(e["iteration"])
        if span is not None:
            span.set_attributes(self._attrs({"ralph.attempt": e.get("attempt")}))

    def _verification_ended(self, e: dict[str, Any]) -> None:
        span = self._rotations.get(e["iteration"])  # ended with its rotation, just after
        if span is not None:
            attrs = {
                "ralph.passed": e.get("passed"),
                "ralph.summary": e.get("summary"),
                "ralph.reasons": e.get("reasons") or None,
            }
            span.set_attributes(self._attrs(attrs))

    def _run_ended(self, e: dict[str, Any]) -> None:
        end = _ns(e["ts"])
        for span in (*self._rotations.values(), *self._specs.values()):
            span.end(end_time=end)
        self._rotations.clear()
        self._specs.clear()
        if self._run is not None:
            usage = e.get("usage") or {}
            self._run.set_attributes(
                self._attrs(
                    {
                        "ralph.exit_code": e.get("exit_code"),
                        "ralph.reason": e.get("reason"),
                        "ralph.rotations": e.get("run_iteration"),
                        "gen_ai.usage.input_tokens": usage.get("input_tokens"),
                        "gen_ai.usage.output_tokens": usage.get("output_tokens"),
                        "ralph.cost_usd": usage.get("cost_usd"),
                    }
                )
            )
            self._run.end(end_time=end)
            self._run = None
        self.provider.force_flush()
        self.provider.shutdown()
