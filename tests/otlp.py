"""An OTLP/HTTP trace receiver on 127.0.0.1 for tests: a real HTTP server that decodes the
protobuf the real exporter sends (opentelemetry-proto), so a test reads the spans a collector
would get."""

from __future__ import annotations

import gzip
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: tuple[tuple[str, dict[str, Any]], ...]


@dataclass
class Traces:
    endpoint: str = ""
    spans: list[Span] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def named(self, prefix: str) -> list[Span]:
        return [s for s in self.spans if s.name.startswith(prefix)]


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [_value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


def _attrs(items: Any) -> dict[str, Any]:
    return {a.key: _value(a.value) for a in items}


@contextmanager
def receiving() -> Iterator[Traces]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
        ExportTraceServiceResponse,
    )

    got = Traces()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            with lock:
                got.paths.append(self.path)
                for resource in request.resource_spans:
                    for scope in resource.scope_spans:
                        for s in scope.spans:
                            got.spans.append(
                                Span(
                                    s.trace_id.hex(),
                                    s.span_id.hex(),
                                    s.parent_span_id.hex(),
                                    s.name,
                                    s.start_time_unix_nano,
                                    s.end_time_unix_nano,
                                    _attrs(s.attributes),
                                    tuple((e.name, _attrs(e.attributes)) for e in s.events),
                                )
                            )
            answer = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    got.endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()
