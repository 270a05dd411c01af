"""Telling error texts apart (rate limit, auth, overflow) and reading reset times: pure."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ralph.agents.faults import classify, fault_from, fault_in_lines, reset_time

# 2026-11-22 10:00:00 UTC
NOW = datetime(2026, 11, 22, 10, 0, tzinfo=timezone.utc).timestamp()


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("You've hit your session limit · resets 12:58pm (UTC)", "rate_limit"),
        ("You\u2019ve hit your usage limit. Upgrade to Pro", "rate_limit"),
        ("API Error: Request rejected (429) · slow down", "rate_limit"),
        ("API Error: 529 Overloaded. This is a server-side issue", "rate_limit"),
        ("Quota exceeded. Check your plan and billing details.", "rate_limit"),
        ("exceeded retry limit, last status: 429 Too Many Requests", "rate_limit"),
        ("[API Error: You have exhausted your daily quota on this model.]", "rate_limit"),
        ("litellm.RateLimitError: AnthropicException", "rate_limit"),
        ("Error: You've hit your usage limit", "rate_limit"),
        ("Invalid API key · Fix external API key", "auth"),
        ("Not logged in · Please run /login", "auth"),
        ("unexpected status 401 Unauthorized: Incorrect API key provided", "auth"),
        ("--dangerously-skip-permissions cannot be used with root/sudo privileges", "auth"),
        (
            "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
            "auth",
        ),
        ("Credit balance is too low", "auth"),
        ("Prompt is too long · the request is ~250000 tokens (limit 200000)", "overflow"),
        ("Codex ran out of room in the model's context window.", "overflow"),
        ("Model anthropic/claude-mock has hit a token limit!", "overflow"),
        ("API Error: 500 Internal server error. try again in a moment", None),
        ("API Error: Unable to connect to API (ConnectionRefused)", None),
        ("Segmentation fault", None),
    ],
)
def test_classify(text: str, kind: str | None) -> None:
    assert classify(text) == kind


def end_of(when: float) -> float:
    """A clock time the CLI gave in hours and minutes means the end of that minute."""
    return when + 60


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You've hit your session limit · resets 12:58pm (UTC)", end_of(utc(2026, 11, 22, 12, 58))),
        # already past today: the same time tomorrow
        ("You've hit your session limit · resets 9am (UTC)", end_of(utc(2026, 11, 23, 9, 0))),
        ("You've hit your weekly limit · resets Jan 1, 2030, 12am (UTC)", end_of(utc(2030, 1, 1))),
        ("resets Dec 3, 5pm (UTC)", end_of(utc(2026, 12, 3, 17, 0))),
        ("try again at Jan 1st, 2030 12:00 AM.", end_of(datetime(2030, 1, 1).timestamp())),
        ("resets 3:30pm (Europe/Paris)", end_of(utc(2026, 11, 22, 14, 30))),
        ("Suggested retry after 20s.. Retrying after 5650ms", NOW + 20),
        ("Please retry in 1.5 minutes", NOW + 90),
        ("You've hit your usage limit. Try again later.", None),
        ("try again 3 times", None),
        ("resets 25:00", None),
    ],
)
def test_reset_time(text: str, expected: float | None) -> None:
    assert reset_time(text, NOW) == expected


def local(now: float, hour: int, minute: int) -> float:
    return datetime.fromtimestamp(now).replace(hour=hour, minute=minute, second=0).timestamp()


@pytest.mark.parametrize("seconds_into_the_minute", [0, 1, 30, 59])
def test_a_codex_time_in_the_current_minute_is_the_end_of_that_minute_not_the_past(
    seconds_into_the_minute: int,
) -> None:
    # Codex says "try again at 6:24 PM" at 6:24:xx: the limit lifts within the minute
    minute_start = local(NOW, 18, 24)
    now = minute_start + seconds_into_the_minute
    text = "You\u2019ve hit your usage limit. Upgrade to Pro or try again at 6:24 PM."
    assert reset_time(text, now) == minute_start + 60


def test_a_time_a_few_minutes_past_is_a_limit_just_lifted_an_older_one_is_tomorrow() -> None:
    minute_start = local(NOW, 18, 24)
    text = "try again at 6:24 PM."
    # read 3 minutes late (the CLI took its time to exit): not tomorrow
    assert reset_time(text, minute_start + 4 * 60) == minute_start + 60
    # an hour later it can only mean tomorrow
    tomorrow = reset_time(text, minute_start + 3600)
    assert tomorrow is not None and tomorrow - (minute_start + 60) == pytest.approx(86400, abs=3600)


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("You've hit your session limit · resets 12:58pm (UTC)", "session"),
        ("You've hit your weekly limit · resets Jan 1, 2030, 12am (UTC)", "weekly"),
        ("You\u2019ve hit your usage limit. try again at 1:00 PM.", "usage"),
        ("[API Error: You have exhausted your daily quota on this model.]", "daily"),
        ("Quota exceeded. Check your plan and billing details.", "usage"),
        ("API Error: Request rejected (429) · 50,000 input tokens per minute", "short"),
        ("exceeded retry limit, last status: 429 Too Many Requests", "short"),
        ("API Error: 529 Overloaded. This is a server-side issue", "short"),
        ("litellm.RateLimitError: The API provider has rate limited you.", "short"),
    ],
)
def test_a_rate_limit_names_its_window_and_a_bare_429_is_short(text: str, window: str) -> None:
    fault = fault_from(text, NOW)
    assert fault is not None and fault.window == window
    assert fault.short is (window == "short")


def test_fault_message_is_one_bounded_line() -> None:
    fault = fault_from("Rate limit\n  reached " + "x" * 2000, NOW)
    assert fault is not None
    assert "\n" not in fault.message and len(fault.message) <= 500


def test_no_fault_in_an_ordinary_error() -> None:
    assert fault_from("TypeError: undefined is not a function", NOW) is None
    assert fault_from("", NOW) is None


def test_the_first_line_naming_a_fault_is_the_message() -> None:
    lines = ["starting", "Attempt 1 failed: You exceeded your current quota", "retry after 4s"]
    fault = fault_in_lines(lines, NOW)
    assert fault is not None
    assert fault.message == "Attempt 1 failed: You exceeded your current quota"
    assert fault.resets_at == NOW + 4
