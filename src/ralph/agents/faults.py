"""Telling an agent's error text apart: a usage/rate limit, an auth or configuration problem, a
context overflow, or none of those (a plain failure). Pure functions; `now` is passed in.

The patterns are applied to error channels only (an error result, an error event, stderr),
never to what the model wrote: a model discussing rate limits has not hit one.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone, tzinfo

from ralph.agents.result import AgentFault, FaultKind, Window

_I = re.IGNORECASE
# Checked in this order: "Prompt is too long · ... (limit 200000)" is an overflow, and
# "Quota exceeded. Check your plan and billing details." is a quota, not an auth problem.
PATTERNS: tuple[tuple[FaultKind, re.Pattern[str]], ...] = (
    (
        "overflow",
        re.compile(
            r"prompt is too long|context[ _](?:window|length|limit)|ran out of room"
            r"|token limit|maximum context|exceeds the maximum number of tokens"
            r"|context_length_exceeded|ContextOverflow",
            _I,
        ),
    ),
    (
        "rate_limit",
        re.compile(
            r"you['\u2019]ve (?:hit|reached|used) your|you['\u2019]re out of usage"
            r"|out of usage credits"
            r"|your org is out of usage|usage[ _]limit|rate[ _-]?limit|request rejected \(429\)"
            r"|\b429\b|too many requests|quota|resource[ _]?exhausted|overloaded|\b529\b"
            r"|high demand|temporarily limiting requests|get cursor pro",
            _I,
        ),
    ),
    (
        "auth",
        re.compile(
            r"invalid api key|api key not valid|invalid x-api-key|incorrect api key"
            r"|please run /login|run /login|not logged in|log ?in required|\b401\b|\b403\b"
            r"|unauthori[sz]ed|authenticat|credit balance is too low|insufficient credits"
            r"|billing|root/sudo privileges|must specify the \w+ environment variable"
            r"|invalid auth method|not inside a trusted directory|codex_home points to"
            r"|api[ _]key (?:is )?(?:missing|required|not set)|no api key",
            _I,
        ),
    ),
)
MESSAGE_MAX = 500


def classify(text: str) -> FaultKind | None:
    """The kind of fault an error text describes, or None for an ordinary failure."""
    for kind, pattern in PATTERNS:
        if pattern.search(text):
            return kind
    return None


def one_line(text: str, limit: int = MESSAGE_MAX) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def fault_from(
    text: str | None,
    now: float,
    kind: FaultKind | None = None,
    resets_at: float | None = None,
    window: Window | None = None,
) -> AgentFault | None:
    """A fault for an error text (its kind found by `classify` unless given), or None."""
    if not text or not text.strip():
        return None
    kind = kind or classify(text)
    if kind is None:
        return None
    if kind != "rate_limit":
        return AgentFault(kind, one_line(text))
    if resets_at is None:
        resets_at = reset_time(text, now)
    return AgentFault(kind, one_line(text), resets_at, window or limit_window(text))


def fault_in_lines(lines: list[str], now: float) -> AgentFault | None:
    """The first line that names a fault (stderr, free text), with the reset time of them all."""
    for line in lines:
        kind = classify(line)
        if kind is not None:
            if kind != "rate_limit":
                return AgentFault(kind, one_line(line))
            whole = "\n".join(lines)
            return AgentFault(kind, one_line(line), reset_time(whole, now), limit_window(whole))
    return None


# Which window a limit belongs to, from the CLI's words. Checked in this order; a rate limit
# that names no plan window (an API 429, "Overloaded", "too many requests") is `short`: a
# per-minute limit or a busy server, worth retrying within seconds, not a quota to wait out.
_WINDOWS: tuple[tuple[Window, re.Pattern[str]], ...] = (
    ("weekly", re.compile(r"weekly|seven[_ ]day|7[- ]day|per ?week", _I)),
    ("daily", re.compile(r"daily|per ?day|perday", _I)),
    ("session", re.compile(r"session limit|five[_ ]hour|5[- ]hour", _I)),
    (
        "usage",
        re.compile(
            r"usage[ _]limit|out of usage|usage credits|(?:opus|sonnet) limit|monthly"
            r"|quota exceeded|insufficient[ _]quota|exhausted your|spend limit|get cursor pro"
            r"|you['\u2019]ve (?:hit|reached|used) your",
            _I,
        ),
    ),
)


def limit_window(text: str) -> Window:
    """The window a rate-limit text names: weekly, daily, session, a plan's usage, or short."""
    for window, pattern in _WINDOWS:
        if pattern.search(text):
            return window
    return "short"


_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
# "resets 12:58pm (UTC)", "resets Jan 1, 2030, 12am (UTC)", "try again at 1:00 PM.",
# "try again at Jan 1st, 2030 12:00 AM."
_CLOCK = re.compile(
    r"(?:resets?|try again|available again|again)\s+(?:at\s+|on\s+)?"
    r"(?:(?P<mon>[A-Za-z]{3})[a-z]*\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+"
    r"(?:(?P<year>\d{4}),?\s+)?(?:at\s+)?)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)?"
    r"(?:\s*\((?P<tz>[^)]+)\))?",
    _I,
)
# "Suggested retry after 1s", "Please retry in 20.5s", "try again in 5 minutes"
_RELATIVE = re.compile(
    r"(?:retry after|retry in|retrying after|try again in|resets in)\s+"
    r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b",
    _I,
)
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
MINUTE = timedelta(minutes=1)
LATE_READING = 300.0  # seconds: a clock time this recent is a limit that has just lifted


def reset_time(text: str, now: float) -> float | None:
    """When a limit resets, in epoch seconds, from the agent's own words; None when not said.

    A clock time is the end of the minute it names (never earlier than the CLI meant); without
    a date it is the next such time after `now`; without a time zone it is the machine's local
    time (what the CLI printed it in).
    """
    rel = _RELATIVE.search(text)
    if rel is not None:
        unit = rel.group("unit").lower()
        key = "ms" if unit.startswith("mil") or unit == "ms" else unit[0]
        return now + float(rel.group("n")) * _UNIT[key]
    for match in _CLOCK.finditer(text):
        when = _absolute(match, now)
        if when is not None:
            return when
    return None


def _absolute(match: re.Match[str], now: float) -> float | None:
    hour = int(match.group("hour"))
    minute = int(match.group("minute") or 0)
    ampm = (match.group("ampm") or "").lower().replace(".", "")
    if not ampm and match.group("minute") is None:
        return None  # a bare number ("try again 3 times") is no time of day
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    zone = _zone(match.group("tz"))
    base = datetime.fromtimestamp(now, zone)
    mon = match.group("mon")
    if mon is not None:
        month = _MONTHS.get(mon.lower())
        if month is None:
            return None
        year = int(match.group("year") or base.year)
        try:
            when = datetime(year, month, int(match.group("day")), hour, minute, tzinfo=zone)
        except ValueError:
            return None
        if match.group("year") is None and when.timestamp() < now - 86400:
            when = when.replace(year=year + 1)
        return (when + MINUTE).timestamp()
    # Only hours and minutes: the CLI means the end of that minute ("try again at 6:24 PM"
    # said at 6:24:30 is 30 seconds away, not the past). A time that ended a few minutes ago
    # was said before ralph read it (the limit has lifted); an older one is tomorrow's.
    when = base.replace(hour=hour, minute=minute, second=0, microsecond=0) + MINUTE
    if when.timestamp() < now - LATE_READING:
        when += timedelta(days=1)
    return when.timestamp()


def _zone(name: str | None) -> tzinfo | None:
    """A named zone; None (local time) when absent or unknown."""
    if name is None:
        return None
    name = name.strip()
    if name.upper() in ("UTC", "GMT", "Z"):
        return timezone.utc
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except (ValueError, KeyError, OSError, ImportError):
        return None
