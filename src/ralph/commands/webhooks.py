"""The run's webhook (`notify: {webhook: URL}` in ralph.yaml): what it is told and when —
the end of every run, however it ended, and each time the run needs a person."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.rules.counts.state import MAX_COUNT

# A wait shorter than this is a per-minute limit's backoff, not a quota window: nobody is told.
PARKED_AT_LEAST = 300.0

if TYPE_CHECKING:
    from ralph.run.escalation import Escalation
    from ralph.run.facts import Fact
    from ralph.store.person.config import RalphConfig
    from ralph.ui.runreport import RunReport
    from ralph.ui.webhook import Webhook


def open_webhook(config: RalphConfig) -> Webhook | None:
    url = config.notify.webhook_url(dict(os.environ))
    if url is None:
        return None
    from ralph.ui.webhook import Webhook

    return Webhook(url)


def on_fact(hook: Webhook, root: Path, fact: Fact) -> None:
    """A question from the agent, or a wait for a limit window: someone should know."""
    from ralph.run.facts import QuestionAsked, WaitStarted
    from ralph.ui.webhook import person_payload

    if isinstance(fact, QuestionAsked):
        detail = "write the answer to .ralph/answer.md and run ralph again"
        hook.send(person_payload("question", root.name, fact.spec, detail))
    elif isinstance(fact, WaitStarted) and fact.until - time.time() >= PARKED_AT_LEAST:
        until = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(fact.until))
        hook.send(person_payload("waiting", root.name, f"until {until}", fact.reason))


def on_escalation(hook: Webhook, root: Path, e: Escalation) -> None:
    """Sent before the choice is made (on a terminal, someone has to come and make it)."""
    from ralph.ui.webhook import person_payload

    detail = "; ".join(e.reasons[-3:])
    hook.send(person_payload("escalation", root.name, e.subject, detail))


def on_run_end(hook: Webhook, root: Path, report: RunReport) -> None:
    """The end of the run, then a bounded wait for every POST still going."""
    from ralph.ui.webhook import run_end_payload

    specs: list[dict[str, Any]] = [
        {
            "path": s.path,
            "done_count": s.done_count,
            "verified": s.done_count >= MAX_COUNT,
            "last_status": s.last_status,
        }
        for s in report.specs
    ]
    code = report.exit_code if report.exit_code is not None else 1
    totals, said = None, None
    if report.totals is not None:
        from ralph.ui.text import totals_line

        totals, said = report.totals.to_json(), totals_line(report.totals)
    hook.send(run_end_payload(root.name, code, report.reason or "", specs, totals, said))
    hook.finish()
