"""`--log-format json`: the headless display that writes one JSON object per event."""

from __future__ import annotations

import contextlib

from ralph.rules.agents.money import rounded_money
from ralph.run.events import AgentOutput, Event, event_fields, event_name
from ralph.schemas.catalog import SCHEMA_VERSION
from ralph.ui.plain import LineDisplay, wanted
from ralph.ui.text import clean_line


class JsonDisplay(LineDisplay):
    """`--log-format json`: one JSON object per event on one line, for other tools to read.

    Each object has `ts` (epoch seconds), `event` (`rotation_ended`...) and the event's fields,
    whatever they are, so fields added to events later appear without changes here.
    """

    def handle(self, event: Event) -> None:
        import json

        if not wanted(event, verbose=self.verbose, quiet=self.quiet):
            return
        record = {
            "schema_version": SCHEMA_VERSION,
            "ts": round(self._clock(), 3),
            "event": event_name(event),
            **event_fields(event),
        }
        if isinstance(event, AgentOutput):
            record["lines"] = [clean_line(line) for line in event.lines]
        # ensure_ascii: a log reader with a narrow encoding still gets valid JSON.
        self.stream.write(json.dumps(rounded_money(record), default=str) + "\n")
        self.stream.flush()

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.stream.flush()
