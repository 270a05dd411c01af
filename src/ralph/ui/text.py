"""Text the displays share: agent lines made safe to print, clocks, plurals."""

from __future__ import annotations

import time

from ralph.rules.counts.runtotals import RunTotals
from ralph.rules.counts.state import Tally
from ralph.rules.text.printable import clean_line, printable
from ralph.rules.text.words import plural

__all__ = ["clean_line", "printable"]  # the rules every display applies, by these names


def format_clock(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss` past an hour); negative values (clock skew) show as 0:00."""
    total = int(max(0.0, seconds))
    minutes, secs = divmod(total, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_when(epoch: float) -> str:
    """A local date and time to the second, as every listing of past events shows it."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def format_seconds(seconds: float) -> str:
    """Short rotations keep a decimal (useful for fast agents); long ones read better as m:ss."""
    if seconds < 60:
        return f"{max(0.0, seconds):.1f} s"
    return format_clock(seconds)


def files_changed(count: int) -> str:
    return f"{plural(count, 'file')} changed"


def usage_reported(tally: Tally) -> bool:
    """Did any rotation report tokens or a price (custom commands report neither)?"""
    return bool(tally.tokens) or tally.unpriced < tally.rotations


def totals_line(totals: RunTotals) -> str:
    """A run's numbers in one line, the same wherever they are shown (the end of a run,
    `status`, the HTML report, the webhook): `4 rotations · 120.0k in · 4.0k out · $0.40 ·
    time 0:12 (agents 0:08, ralph's checks 0:03)`; tokens and cost only when reported."""
    from ralph.rules.counts.usage import format_tally

    parts = [plural(totals.rotations, "rotation")]
    if usage_reported(totals.usage):
        parts.append(format_tally(totals.usage))
    if totals.wall_s is not None:
        parts.append(
            f"time {format_clock(totals.wall_s)} (agents {format_clock(totals.agent_s)}, "
            f"ralph's checks {format_clock(totals.checks_s)})"
        )
    return " · ".join(parts)
