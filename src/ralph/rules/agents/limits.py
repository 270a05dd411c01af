"""An agent's limit windows, pure: what its CLI reported (five-hour session, week, day, a plan's
usage), when to park it before the wall (`limits.pause_at`), how the windows read.

The run records each agent's last report per window in `limits.json` (ralph's store)
(`{"agents": {name: {window: {utilization, resets_at, status, seen_at}}}}`); `ralph status` and
`ralph agents` show it. Times are epoch seconds; `now` is always passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ralph.rules.agents.pool import clock


class Reported(Protocol):
    """One window as an agent reported it (`ralph.agents.result.LimitInfo` fits)."""

    @property
    def window(self) -> str: ...
    @property
    def utilization(self) -> float | None: ...
    @property
    def resets_at(self) -> float | None: ...
    @property
    def status(self) -> str: ...


def park_until(limits: Iterable[Reported], pause_at: float | None, now: float) -> Reported | None:
    """The window that reached `pause_at` percent (or was refused) and resets after `now`: the
    agent sits out until then. Of several, the one that resets last; None: keep going."""
    due = [
        lim
        for lim in limits
        if lim.resets_at is not None
        and lim.resets_at > now
        and (
            lim.status == "rejected"
            or (
                pause_at is not None
                and lim.utilization is not None
                and lim.utilization * 100 >= pause_at
            )
        )
    ]
    return max(due, key=lambda lim: lim.resets_at or 0.0, default=None)


def merged(
    saved: Mapping[str, Any], agent: str, limits: Iterable[Reported], now: float
) -> dict[str, Any]:
    """`limits.json` with `agent`'s newest report per window."""
    agents = {k: dict(v) for k, v in saved.get("agents", {}).items() if isinstance(v, dict)}
    mine = agents.setdefault(agent, {})
    for lim in limits:
        mine[lim.window] = {
            "utilization": lim.utilization,
            "resets_at": lim.resets_at,
            "status": lim.status,
            "seen_at": now,
        }
    return {"agents": agents}


def describe(windows: Mapping[str, Any], now: float) -> str:
    """`session 92% (resets 14:05), weekly 40%`; a reset that has passed reads `reset since`."""
    parts: list[str] = []
    for window, row in sorted(windows.items()):
        if not isinstance(row, dict):
            continue
        used = row.get("utilization")
        resets = row.get("resets_at")
        text = window
        if row.get("status") == "rejected" and (
            not isinstance(resets, (int, float)) or resets > now
        ):
            text += " exhausted"
        elif isinstance(used, (int, float)):
            text += f" {used * 100:.0f}%"
        if isinstance(resets, (int, float)):
            text += f" (resets {clock(resets, now)})" if resets > now else " (reset since)"
        parts.append(text)
    return ", ".join(parts)
