"""ui/jsonlines.py: `--log-format json`."""

from __future__ import annotations

import io
import json

from ralph.run.events import Notice
from ralph.ui.jsonlines import JsonDisplay
from tests.ui.test_plain import CheckResult, costly


def test_json_display_carries_unknown_fields_and_events() -> None:
    out = io.StringIO()
    display = JsonDisplay(out, clock=lambda: 5.0)
    display.handle(costly())
    display.handle(CheckResult("PROMPT.md", "pytest", False))  # type: ignore[arg-type]
    display.handle(Notice("warning", "careful"))
    first, second, third = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["event"] == "costly_rotation_ended" and first["cost_usd"] == 0.125
    assert second == {
        "schema_version": 1,
        "ts": 5.0,
        "event": "check_result",
        "spec": "PROMPT.md",
        "check": "pytest",
        "passed": False,
    }
    assert third["level"] == "warning"
