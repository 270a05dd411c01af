"""`notify: {webhook: URL}` in ralph.yaml: a JSON POST when a run ends and when it needs a
person (a question, an escalation, a wait for a quota window).

The body carries `event`, `project` and a Slack-compatible `text` (so a Slack or Mattermost
incoming webhook shows it as is). A webhook is a courtesy: each POST runs in a daemon thread
with a short timeout, and the end of a run waits for the pending ones at most `BOUND` seconds,
so one that fails or hangs never changes how a run ends. Its URL is a secret (a Slack webhook
URL is one): no message ever shows more of it than its scheme and host.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from typing import Any, TextIO

from ralph.rules.text.redact import redactor

TIMEOUT = 5.0  # seconds for one POST (connect, and each read)
BOUND = 8.0  # the longest the end of a run waits for pending POSTs
MAX_TEXT = 2000  # characters of a message's `text` (a chat shows a line, not a log)


def where(url: str) -> str:
    """What a message may say about the URL: `https://hooks.example.com`, never its path."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.hostname or '?'}"
    except ValueError:
        return "(webhook)"


def slack_text(text: str) -> str:
    """`text` as Slack's message format reads it literally: `&`, `<` and `>` escaped, so
    that what an agent wrote cannot ping a channel (`<!channel>`), disguise a link
    (`<http://x|label>`) or mention anyone; one line, at most `MAX_TEXT` characters."""
    from ralph.rules.text.printable import clean_line

    text = clean_line(" ".join(text.split()))
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def run_end_payload(
    project: str,
    exit_code: int,
    reason: str,
    specs: list[dict[str, Any]],
    totals: dict[str, Any] | None = None,
    said: str | None = None,
) -> dict[str, Any]:
    """`totals`: the run's numbers (RunTotals.to_json), `said` the same in one line."""
    verified = sum(1 for s in specs if s.get("verified"))
    head = "every spec verified" if exit_code == 0 else f"stopped (exit {exit_code}): {reason}"
    text = f"ralph on {project}: {head} · {verified}/{len(specs)} specs verified"
    return {
        "event": "run_end",
        "project": project,
        "exit_code": exit_code,
        "reason": _bounded(reason),
        "specs": specs,
        "totals": totals,
        "text": slack_text(text + (f" · {said}" if said else "")),
    }


def person_payload(event: str, project: str, subject: str, detail: str) -> dict[str, Any]:
    """`question`, `escalation` or `waiting`: the run needs (or waits for) a person."""
    words = {
        "question": "the agent has a question",
        "escalation": "an escalation needs a decision",
        "waiting": "parked until a limit window resets",
    }
    text = f"ralph on {project}: {words.get(event, event)} ({subject})"
    return {
        "event": event,
        "project": project,
        "subject": _bounded(subject),
        "detail": _bounded(detail),
        "text": slack_text(f"{text}: {detail}" if detail else text),
    }


class Webhook:
    """POSTs to one URL in order, from one daemon thread; `finish` waits for them, bounded."""

    def __init__(self, url: str, *, stderr: TextIO | None = None, timeout: float = TIMEOUT):
        import queue

        self._url = url
        self._timeout = timeout
        self._stderr = stderr or sys.stderr
        self._queue: queue.Queue[bytes] = queue.Queue()
        self._worker: threading.Thread | None = None
        # the URL's own parts are secrets too: a library's message could quote any of them
        self._redactor = redactor(frozenset(secret_parts(url)))

    @property
    def secrets(self) -> frozenset[str]:
        """What no output of the run may show: the URL and its secret parts."""
        return frozenset(secret_parts(self._url))

    def send(self, payload: dict[str, Any]) -> None:
        """Queued, never waited for here: the run goes on at once."""
        self._queue.put(json.dumps(redactor().scrub(payload)).encode())
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, daemon=True, name="webhook")
            self._worker.start()

    def finish(self, bound: float = BOUND) -> None:
        """Wait for the POSTs still queued or going, `bound` seconds at most (a daemon thread:
        one still hanging then does not keep ralph from exiting)."""
        deadline = time.monotonic() + bound
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.02)

    def _work(self) -> None:
        while True:
            body = self._queue.get()
            try:
                self._post(body)
            finally:
                self._queue.task_done()

    def _post(self, body: bytes) -> None:
        import urllib.request

        request = urllib.request.Request(
            self._url,
            data=body,
            headers={"Content-Type": "application/json", "User-Agent": "ralph"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                response.read(65536)
        except Exception as exc:  # any failure is said once, never raised
            text = self._redactor.text(str(getattr(exc, "reason", None) or exc))
            with contextlib.suppress(OSError, ValueError):  # stderr closed: nothing to say
                print(
                    f"warning: webhook to {where(self._url)} failed: {text}",
                    file=self._stderr,
                    flush=True,
                )


def secret_parts(url: str) -> list[str]:
    """The URL and its parts that are secrets: never in a message, a log or a report."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return [url]
    pieces = [url, parts.path, parts.query, parts.password or "", parts.username or ""]
    pieces += [p for p in parts.path.split("/") if len(p) >= 8]
    return [p for p in pieces if p]
