"""ui/jsonlines.py: `--log-format json`."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from ralph.run.events import Notice, RotationEnded, SpecRow
from ralph.ui.jsonlines import JsonDisplay

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


@dataclass(frozen=True)
class CostlyRotationEnded(RotationEnded):
    """What an agent adapter might add later: the display must show it without changes."""

    cost_usd: float | None = None


@dataclass(frozen=True)
class CheckResult:
    spec: str
    check: str
    passed: bool


def costly() -> CostlyRotationEnded:
    row = (SpecRow("PROMPT.md", 1, "DONE", False),)
    return CostlyRotationEnded(
        "demo", "PROMPT.md", "IMPLEMENT", 1, 1, 20, "DONE", 0, 1, 2.0, None, (), row, cost_usd=0.125
    )


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
