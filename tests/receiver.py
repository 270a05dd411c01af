"""A webhook receiver on 127.0.0.1 for tests: a real HTTP server keeping every JSON body it is
POSTed, and the raw bytes, so a test checks what a chat would get."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

SECRET = "T0000SECRET/B0000SECRET/XXXXsecretXXXXtoken"  # where Slack keeps a webhook's secret


@dataclass
class Received:
    url: str
    bodies: list[dict[str, Any]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)

    def of(self, event: str) -> list[dict[str, Any]]:
        return [b for b in self.bodies if b.get("event") == event]


@contextmanager
def receiving() -> Iterator[Received]:
    got = Received("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            got.raw.append(body)
            got.bodies.append(json.loads(body))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    got.url = f"http://127.0.0.1:{server.server_address[1]}/services/{SECRET}"
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()
