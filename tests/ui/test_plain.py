"""ui/plain.py: headless displays write whole lines."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ralph.rules.counts.state import Tally
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    RotationEnded,
    RunEnded,
    SpecRow,
    Waiting,
)
from ralph.ui.plain import PlainDisplay
from tests.ui.sample_run import THREE, ended, full_run, started

# Noon local time, so the expected `HH:MM:SS` does not depend on the machine's time zone.
NOON = time.mktime((2024, 1, 15, 12, 0, 1, 0, 15, -1))


class FlushCounter(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.lines_at_flush: list[int] = []

    def flush(self) -> None:
        self.flushes += 1
        self.lines_at_flush.append(self.getvalue().count("\n"))
        super().flush()


def plain_lines(events: Sequence[Event], *, verbose: bool = False) -> list[str]:
    out = io.StringIO()
    display = PlainDisplay(out, verbose=verbose, clock=lambda: NOON)
    with display:
        for event in events:
            display.handle(event)
    return out.getvalue().splitlines()


def test_plain_prints_one_timestamped_line_per_event() -> None:
    assert plain_lines(full_run()) == [
        "12:00:01 run started: agent demo, 1 spec, budget 20 rotations (numbered from 1)",
        "12:00:01 rotation 1/20 [IMPLEMENT] PROMPT.md (demo)",
        "12:00:01 rotation 1 ended: DONE, 2 files changed, PROMPT.md 1/3 (3.1 s)",
        "12:00:01 warning: no signal found",
        "12:00:01 run ended: max iterations reached (exit 1), last rotation 1/20",
        "12:00:01   PROMPT.md 1/3 DONE",
    ]


def test_plain_rotation_line_format() -> None:
    (line,) = plain_lines([started("specs/a.spec.md", "REVIEW", iteration=7, matrix=THREE)])
    assert line == "12:00:01 rotation 7/20 [REVIEW] specs/a.spec.md (demo)"


def test_plain_timestamps_follow_the_clock() -> None:
    ticks = iter([NOON, NOON + 3, NOON + 3661])
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: next(ticks))
    for event in [Notice("info", "a"), Notice("info", "b"), Notice("info", "c")]:
        display.handle(event)
    assert out.getvalue().splitlines() == ["12:00:01 a", "12:00:04 b", "13:01:02 c"]


def test_plain_rotation_end_with_downgrades_and_note() -> None:
    (line,) = plain_lines(
        [ended(signal="NONE", files_changed=1, downgraded=("specs/a.spec.md",), note="no signal")]
    )
    assert line == (
        "12:00:01 rotation 1 ended: NONE, 1 file changed, PROMPT.md 1/3 (3.1 s), "
        "downgraded 3/3→2/3: specs/a.spec.md, note: no signal"
    )


def test_plain_long_rotation_reads_as_minutes() -> None:
    (line,) = plain_lines([ended(elapsed=125.0)])
    assert line.endswith("PROMPT.md 1/3 (2:05)")


def test_plain_run_end_aligns_the_matrix() -> None:
    lines = plain_lines([RunEnded(0, "all specs verified", 9, 9, 20, THREE)])
    assert lines == [
        "12:00:01 run ended: all specs verified (exit 0), last rotation 9/20",
        "12:00:01   PROMPT.md       3/3 DONE",
        "12:00:01   specs/a.spec.md 2/3 CONTINUE",
        "12:00:01   specs/b.spec.md 0/3 —",
    ]


def test_plain_hides_agent_output_unless_verbose() -> None:
    assert plain_lines([AgentOutput("stdout", ("hello",))]) == []
    assert plain_lines([AgentOutput("stdout", ("hello",))], verbose=True) == ["12:00:01   | hello"]


def test_plain_never_writes_escape_codes() -> None:
    events: list[Event] = [
        *full_run()[:3],
        AgentOutput(
            "stdout", ("\x1b[1;31mred\x1b[0m and \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",)
        ),
        AgentOutput("stderr", ("50%\r100%\x07",)),
        Notice("warning", "\x1b[33mcoloured\x1b[0m warning"),
    ]
    lines = plain_lines(events, verbose=True)
    output = "\n".join(lines)
    assert "\x1b" not in output
    assert "\r" not in output
    assert "\x07" not in output
    assert "12:00:01   | red and link" in lines
    assert "12:00:01   | 100%" in lines
    assert "12:00:01 warning: coloured warning" in lines


def test_plain_flushes_after_each_line() -> None:
    out = FlushCounter()
    display = PlainDisplay(out, clock=lambda: NOON)
    for event in full_run():
        display.handle(event)
    assert out.lines_at_flush == [1, 2, 3, 4, 5, 6]


def test_plain_survives_an_ascii_only_stream() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    display = PlainDisplay(stream, clock=lambda: NOON)
    display.handle(ended(downgraded=("specs/a.spec.md",)))
    display.close()
    assert b"downgraded 3/3->2/3: specs/a.spec.md" in raw.getvalue()


ROWS = (SpecRow("PROMPT.md", 0, None, False),)


T0 = 1_000_000.0


def plain(events: list[Event], now: float = T0) -> list[str]:
    out = io.StringIO()
    with PlainDisplay(out, clock=lambda: now) as display:
        for event in events:
            display.handle(event)
    return out.getvalue().splitlines()


CLAUDE = Tally(1, 12_000, 3_400, 0.42, 0)


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
    """A rotation's end with a field no display knows (also tests/ui/test_jsonlines.py's)."""
    row = (SpecRow("PROMPT.md", 1, "DONE", False),)
    return CostlyRotationEnded(
        "demo", "PROMPT.md", "IMPLEMENT", 1, 1, 20, "DONE", 0, 1, 2.0, None, (), row, cost_usd=0.125
    )


def test_plain_display_shows_fields_and_events_it_does_not_know() -> None:
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: 0.0)
    display.handle(costly())
    display.handle(CheckResult("PROMPT.md", "pytest", False))  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert lines[0].endswith(", cost usd 0.125"), lines
    assert lines[1].endswith("check result: spec PROMPT.md, check pytest, passed False"), lines


ROW = (SpecRow("PROMPT.md", 3, "DONE", False),)


def test_the_end_line_says_costs_in_words() -> None:
    costs = {
        "specs": 1, "verified": 1, "open": 0,
        "spent_verified": {"calls": 3, "input_tokens": 900, "output_tokens": 90, "cost_usd": 0.5},
        "spent_open": {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": None},
        "per_verified_spec": {"calls": 3, "input_tokens": 900, "output_tokens": 90,
                              "cost_usd": 0.5},
        "forecast_open": None,
        "per_spec": {"PROMPT.md": {"calls": 3}},
    }  # fmt: skip
    out = io.StringIO()
    PlainDisplay(out, clock=lambda: 0.0).handle(
        RunEnded(0, "every spec verified", 3, 3, 20, ROW, Tally(3, 900, 90, 0.5), costs)
    )
    text = out.getvalue()
    assert "{" not in text, text
    assert "costs: per verified spec: $0.50, 990 tokens" in text


START = 1_000_000.0


def usage_ended(agent: str, usage: Tally | None, iteration: int = 1) -> RotationEnded:
    return RotationEnded(
        agent,
        "PROMPT.md",
        "IMPLEMENT",
        iteration,
        iteration,
        20,
        "DONE",
        0,
        1,
        2.0,
        None,
        (),
        ROWS,
        usage,
    )


def usage_plain(events: list[Event], now: float = START) -> list[str]:
    out = io.StringIO()
    with PlainDisplay(out, clock=lambda: now) as display:
        for event in events:
            display.handle(event)
    return out.getvalue().splitlines()


def test_plain_lines_show_usage_the_wait_and_the_run_total() -> None:
    lines = usage_plain(
        [
            usage_ended("claude", CLAUDE),
            Waiting(START + 90, "every agent is rate-limited (claude until 14:05)"),
            RunEnded(0, "every spec verified (3/3)", 1, 1, 20, ROWS, CLAUDE),
        ]
    )
    assert lines[0].endswith("usage: 12.0k in · 3.4k out · $0.42")
    until = time.strftime("%H:%M:%S", time.localtime(START + 90))
    assert f"waiting until {until} (1:30 left): every agent is rate-limited" in lines[1]
    assert lines[-1].endswith("usage this run: 12.0k in · 3.4k out · $0.42")


def test_quiet_plain_output_still_shows_the_wait() -> None:
    out = io.StringIO()
    with PlainDisplay(out, quiet=True, clock=lambda: START) as display:
        display.handle(usage_ended("claude", CLAUDE))
        display.handle(Waiting(START + 90, "every agent is rate-limited"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "waiting until" in lines[0]
