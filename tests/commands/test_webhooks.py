"""commands/webhooks.py: the run's webhook (`notify: {webhook: URL}`)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ralph.store.person.config import parse_config
from ralph.ui import webhook

SECRET = "T0000SECRET/B0000SECRET/XXXXsecretXXXXtoken"


@dataclass
class Receiver:
    url: str
    bodies: list[dict[str, Any]] = field(default_factory=list)

    def events(self) -> list[str]:
        return [b["event"] for b in self.bodies]


def _serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/services/{SECRET}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    got: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            got.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    for url in _serve(Handler):
        yield Receiver(url, got)


@pytest.fixture
def hanging() -> Iterator[str]:
    """A receiver that accepts the request and never answers."""
    release = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            release.wait(60)

        def log_message(self, *args: object) -> None:
            pass

    try:
        yield from _serve(Handler)
    finally:
        release.set()


def test_a_bound_holds_against_a_receiver_that_never_answers(hanging: str) -> None:
    hook = webhook.Webhook(hanging, timeout=30)
    hook.send({"event": "run_end"})
    started = time.monotonic()
    hook.finish(bound=0.5)
    assert time.monotonic() - started < 15  # far short of the receiver's 30 s timeout


def test_where_says_only_the_scheme_and_host() -> None:
    assert webhook.where(f"https://hooks.example.com/services/{SECRET}") == (
        "https://hooks.example.com"
    )
    assert parse_config("notify: {webhook: https://x.example/y}").notify.webhook_url({}) == (
        "https://x.example/y"
    )


def test_a_wait_for_a_limit_window_is_sent(receiver: Receiver, tmp_path: Path) -> None:
    from ralph.commands.webhooks import Told
    from ralph.run.facts import WaitStarted
    from ralph.run.observers import payload

    hook = webhook.Webhook(receiver.url)
    told = Told(hook, (tmp_path / "app").name)
    for wait in (
        WaitStarted(time.time() + 20, "a per-minute backoff"),
        WaitStarted(time.time() + 3600, "claude: weekly limit"),
    ):
        told.ralph_limit_reached(payload(wait, time.time()))  # as the observer hook hears it
    hook.finish()
    (sent,) = receiver.bodies
    assert sent["event"] == "waiting" and sent["project"] == "app"
    assert "weekly limit" in sent["text"] and sent["subject"].startswith("until ")
