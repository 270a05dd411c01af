"""`--notify`: a desktop notification at the end of a run, through the platform's notifier.

notify-send (Linux, BSD) or osascript (macOS) when one is on PATH; silent otherwise, and never
an error: a missing or broken notifier must not change how a run ends.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ralph.rules.text.printable import clean_text
from ralph.rules.text.words import plural
from ralph.ui.runreport import RunReport

NOTIFY_TIMEOUT = 5.0


def notification_text(report: RunReport) -> tuple[str, str]:
    """Title and body, e.g. ("ralph: every spec verified", "3/3 specs verified · 7 rotations")."""
    if report.exit_code == 0:
        title = "ralph: every spec verified"
    else:
        title = f"ralph stopped (exit {report.exit_code})"
    done = f"{report.verified}/{len(report.specs)} specs verified"
    body = f"{done} · {plural(report.rotations, 'rotation')}"
    if report.reason and report.exit_code != 0:
        body = f"{report.reason}\n{body}"
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


def notify_run_end(report: RunReport) -> None:
    argv = notifier_command(*notification_text(report))
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
