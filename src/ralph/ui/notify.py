"""`--notify`: a desktop notification at the end of a run, through the platform's notifier; one
of ralph's own plugins (`ralph_run_reported`), registered for the run that asks for it.

notify-send (Linux, BSD) or osascript (macOS) when one is on PATH; silent otherwise, and never
an error: a missing or broken notifier must not change how a run ends.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from ralph.plugins.contained import LIMIT
from ralph.plugins.hookspecs import hookimpl
from ralph.rules.text.printable import clean_text
from ralph.rules.text.words import plural

NAME = "ralph.notify"  # its name among the plugins (`ralph plugins`)
NOTIFY_TIMEOUT = LIMIT - 1.0  # a notifier that hangs is stopped within a plugin's time limit


def notification_text(event: dict[str, Any]) -> tuple[str, str]:
    """Title and body of a `run_reported` event, e.g. ("ralph: every spec verified",
    "3/3 specs verified · 7 rotations")."""
    code, reason, specs = event["exit_code"], event["reason"], event["specs"]
    title = "ralph: every spec verified" if code == 0 else f"ralph stopped (exit {code})"
    verified = sum(1 for s in specs if s["verified"])
    body = f"{verified}/{len(specs)} specs verified · {plural(event['rotations'], 'rotation')}"
    if reason and code != 0:
        body = f"{reason}\n{body}"
    return title, body


def notifier_command(title: str, body: str) -> list[str] | None:
    """The notifier's command line, or None when the platform has none."""
    title, body = clean_text(title), clean_text(body)  # a reason may quote the agent
    found = shutil.which("notify-send")
    if found:
        # the body is markup to notification daemons (<a href>, <img>): shown as text
        markup = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return [found, "--app-name=ralph", title, markup]
    found = shutil.which("osascript")
    if found:

        def quoted(text: str) -> str:
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

        script = f"display notification {quoted(body)} with title {quoted(title)}"
        return [found, "-e", script]
    return None


@hookimpl
def ralph_run_reported(event: dict[str, Any]) -> None:
    """The notification, once the run's reports are written."""
    argv = notifier_command(*notification_text(event))
    if argv is None:
        return
    from ralph.process.request import OPEN, ProcessRequest
    from ralph.process.runner import run_process

    try:
        run_process(
            ProcessRequest(
                argv=tuple(argv),
                cwd=Path.cwd(),
                env=dict(os.environ),
                timeout=NOTIFY_TIMEOUT,
                kill_grace=1.0,
                tail_bytes=4096,
                confined=OPEN,  # ralph's own message to the desktop, not the agent's work
            ),
            lambda stream, chunk: None,
        )
    except Exception:  # a notification is a courtesy, never a failure
        return
