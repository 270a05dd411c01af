"""The scripted model server: HTTP on 127.0.0.1 only, in a thread of the test's process.

Routes: POST /v1/messages (Anthropic), .../responses (OpenAI Responses), .../models/M:...
(Gemini), the token counters of both, GET /v1/models; anything else gets 200 and `{}`. The
agent is started with HTTP(S)_PROXY pointing here too, so a request for any other host (a
CONNECT, or an absolute URL) is refused with 403 and recorded as `"kind": "blocked_egress"`:
nothing leaves the machine, and a test can assert nothing tried.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.model import anthropic, gemini, responses
from tests.model.reply import Reply
from tests.model.script import Ask, Script

HOST = "127.0.0.1"
_SECRET_HEADERS = {"x-api-key", "authorization", "x-goog-api-key"}


class ModelServer:
    """Start it with a script and the folder "{cwd}" falls back to; stop it (or use `with`)."""

    def __init__(self, script: dict[str, Any], cwd: str) -> None:
        self.script = Script(script, cwd)
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer((HOST, 0), _handler(self))
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.1,), daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def requests(self) -> list[dict[str, Any]]:
        """Every request seen, in order: method, path, api, model, rotation, step, kind, body."""
        with self._lock:
            return list(self._records)

    def seen(self) -> str:
        """Everything the clients sent, as one text (to look for what reached the model)."""
        return "\n".join(json.dumps(r) for r in self.requests())

    def record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._records.append(entry)

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=30)

    def __enter__(self) -> ModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        model = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, chunked streams: what the CLIs' clients expect
    model: ModelServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the records are the log."""

    def do_CONNECT(self) -> None:
        self._refuse()

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        if self._proxied():
            self._refuse()
            return
        path = self.path.split("?")[0].rstrip("/")
        self._record({"method": "GET"})
        if path == "/v1/models":
            listing = {"object": "list", "data": [_MODEL], "has_more": False}
            self._send(Reply(200, {**listing, "first_id": "claude-mock", "last_id": "claude-mock"}))
        elif path.startswith("/v1/models/"):
            self._send(Reply(200, {**_MODEL, "id": path.rsplit("/", 1)[-1]}))
        else:
            self._send(Reply(200, {}))

    def do_POST(self) -> None:
        raw = self._body()
        if self._proxied():
            self._refuse()
            return
        path = self.path.split("?")[0]
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if path.endswith(("/count_tokens", ":countTokens")):
            count = max(1, len(raw) // 4)
            self._record({"method": "POST", "kind": "count_tokens"})
            self._send(Reply(200, {"input_tokens": count, "totalTokens": count}))
        elif path.endswith("/v1/messages"):
            self._converse("anthropic", anthropic.read(body, self._headers()), body, anthropic)
        elif path.endswith("/responses"):
            self._converse("responses", responses.read(body, self._headers()), body, responses)
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._converse("gemini", gemini.read(body, self._headers(), path), body, gemini)
        else:
            self._record({"method": "POST", "body": body})
            self._send(Reply(200, {}))

    def _other(self) -> None:
        self._body()
        if self._proxied():
            self._refuse()
            return
        self._record({"method": self.command})
        self._send(Reply(200, {}))

    do_PUT = do_PATCH = do_DELETE = _other

    def _converse(self, api: str, ask: Ask, body: dict[str, Any], dialect: Any) -> None:
        turn = self.model.script.turn(ask)
        self._record(
            {
                "method": "POST",
                "api": api,
                "model": ask.model,
                "stream": ask.stream,
                "main": ask.main,
                "rotation": turn.rotation,
                "step": turn.index,
                "error": turn.step.get("error"),
                "body": body,
            }
        )
        failure = turn.step.get("error")
        answer: Callable[..., Reply] = dialect.answer
        self._send(dialect.error(failure) if failure else answer(turn, ask))

    def _headers(self) -> dict[str, str]:
        """The request's headers by their lower-case names (clients differ in case)."""
        return {k.lower(): v for k, v in self.headers.items()}

    def _proxied(self) -> bool:
        return self.command == "CONNECT" or self.path.startswith(("http://", "https://"))

    def _refuse(self) -> None:
        """A request for another host, sent here by the proxy settings: refused, recorded."""
        self._record({"method": self.command, "kind": "blocked_egress"})
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _record(self, entry: dict[str, Any]) -> None:
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS}
        self.model.record({"path": self.path, "headers": headers, **entry})

    def _body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length:
            return self.rfile.read(int(length))
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return b""
        data = b""
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            data += self.rfile.read(size)
            self.rfile.readline()
        self.rfile.readline()  # the blank line after the last chunk
        return data

    def _send(self, reply: Reply) -> None:
        try:
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.send_header("request-id", "req_scripted")
            if not reply.streamed:
                raw = json.dumps(reply.body).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                return
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in reply.events:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up: its business
            self.close_connection = True


_MODEL = {
    "type": "model",
    "object": "model",
    "id": "claude-mock",
    "display_name": "Scripted",
    "created_at": "2025-01-01T00:00:00Z",
    "created": 1735689600,
    "owned_by": "tests",
}
