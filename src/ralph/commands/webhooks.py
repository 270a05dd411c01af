"""The run's webhook (`notify: {webhook: URL}` in ralph.yaml), one of ralph's own plugins on the
observer hooks: what it is told and when — the end of every run, however it ended, and each
time the run needs a person."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from ralph.plugins.hookspecs import hookimpl

# A wait shorter than this is a per-minute limit's backoff, not a quota window: nobody is told.
PARKED_AT_LEAST = 300.0
NAME = "ralph.webhook"  # its name among the plugins (`ralph plugins`)

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig
    from ralph.ui.webhook import Webhook


def open_webhook(config: RalphConfig) -> Webhook | None:
    url = config.notify.webhook_url(dict(os.environ))
    if url is None:
        return None
    from ralph.ui.webhook import Webhook

    return Webhook(url)


class Told:
    """The webhook as a plugin of one run: each hook it implements queues one POST (never
    waited for here: `Webhook.finish` is, bounded, once the reports are written)."""

    def __init__(self, hook: Webhook, project: str) -> None:
        self.hook = hook
        self.project = project

    @hookimpl
    def ralph_question(self, event: dict[str, Any]) -> None:
        """A question from the agent: someone should answer it."""
        from ralph.ui.webhook import person_payload

        detail = "write the answer to .ralph/answer.md and run ralph again"
        self.hook.send(person_payload("question", self.project, event["spec"], detail))

    @hookimpl
    def ralph_limit_reached(self, event: dict[str, Any]) -> None:
        """A wait for a limit window (not a per-minute backoff): someone should know."""
        from ralph.ui.webhook import person_payload

        if event["until"] - time.time() >= PARKED_AT_LEAST:
            until = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(event["until"]))
            self.hook.send(
                person_payload("waiting", self.project, f"until {until}", event["reason"])
            )

    @hookimpl
    def ralph_escalation_asked(self, event: dict[str, Any]) -> None:
        """Sent before the choice is made (on a terminal, someone has to come and make it)."""
        from ralph.ui.webhook import person_payload

        detail = "; ".join(event["reasons"][-3:])
        self.hook.send(person_payload("escalation", self.project, event["subject"], detail))

    @hookimpl
    def ralph_run_reported(self, event: dict[str, Any]) -> None:
        """The end of the run, however it ended."""
        from ralph.rules.counts.runtotals import recorded_totals
        from ralph.ui.text import totals_line
        from ralph.ui.webhook import run_end_payload

        totals = event["totals"]
        said = None
        if totals is not None:
            found = recorded_totals({"event": "run_end", "totals": totals})
            said = None if found is None else totals_line(found)
        specs = [
            {k: s[k] for k in ("path", "done_count", "verified", "last_status")}
            for s in event["specs"]
        ]
        self.hook.send(
            run_end_payload(self.project, event["exit_code"], event["reason"], specs, totals, said)
        )
