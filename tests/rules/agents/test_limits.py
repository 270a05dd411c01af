"""rules/agents/limits.py: an agent's limit windows, pure."""

from __future__ import annotations

from dataclasses import dataclass

from ralph.rules.agents.limits import describe, merged, park_until
from ralph.rules.agents.pool import clock

NOW = 1_800_000_000.0


@dataclass(frozen=True)
class Lim:
    window: str
    utilization: float | None = None
    resets_at: float | None = None
    status: str = "allowed"


def test_park_at_the_threshold_until_the_window_resets_the_latest_one_wins() -> None:
    session = Lim("session", 0.92, NOW + 600, "allowed_warning")
    weekly = Lim("weekly", 0.95, NOW + 86400, "allowed_warning")
    assert park_until([session], 90, NOW) == session
    assert park_until([session], 95, NOW) is None  # not there yet
    assert park_until([session], None, NOW) is None  # pause_at off
    assert park_until([session, weekly], 90, NOW) == weekly
    assert park_until([Lim("session", 0.99, NOW - 1)], 90, NOW) is None  # already reset
    assert park_until([Lim("session", None, NOW + 60, "rejected")], None, NOW) is not None


def test_the_record_keeps_each_agents_newest_report_per_window() -> None:
    data = merged({}, "claude", [Lim("session", 0.5, NOW + 60)], NOW)
    data = merged(data, "claude", [Lim("weekly", 0.2, NOW + 86400)], NOW + 1)
    data = merged(data, "codex", [Lim("usage", 1.0, None, "rejected")], NOW + 2)
    data = merged(data, "claude", [Lim("session", 0.7, NOW + 60)], NOW + 3)
    assert data["agents"]["claude"]["session"]["utilization"] == 0.7
    assert data["agents"]["claude"]["weekly"]["seen_at"] == NOW + 1
    said = describe(data["agents"]["claude"], NOW)
    assert said == f"session 70% (resets {clock(NOW + 60, NOW)}), weekly 20% (resets " + (
        f"{clock(NOW + 86400, NOW)})"
    )
    assert describe(data["agents"]["codex"], NOW) == "usage exhausted"
    assert describe(data["agents"]["claude"], NOW + 100).startswith("session 70% (reset since)")
