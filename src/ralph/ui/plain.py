"""Headless displays write whole lines: the plain one, one timestamped line per event, never an
escape sequence (safe for CI logs and pipes); and which events a headless display prints."""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, TextIO

from ralph.rules.counts.forecast import costs_from_json, costs_line
from ralph.rules.counts.state import MAX_COUNT as TARGET
from ralph.rules.counts.usage import format_tally, merge
from ralph.rules.text.printable import printable
from ralph.rules.text.words import plural
from ralph.run.events import (
    AgentOutput,
    CancelRequested,
    CostsUpdated,
    Event,
    Notice,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    Waiting,
    event_fields,
    event_name,
)
from ralph.ui.closing import Closing
from ralph.ui.statustable import counter, run_progress, status_text, tests_text
from ralph.ui.text import (
    clean_line,
    files_changed,
    format_clock,
    format_seconds,
    totals_line,
    usage_reported,
)

if TYPE_CHECKING:
    from collections.abc import Callable


# Fields each display already renders in its own words; any other field an event carries (a
# later addition such as usage or a check result) is appended as `name value`, never dropped.
_RENDERED: dict[type, frozenset[str]] = {
    RunStarted: frozenset({"agent", "iteration", "max_iterations", "run_iteration", "matrix"}),
    RotationStarted: frozenset(
        {
            "agent",
            "spec",
            "mode",
            "iteration",
            "max_iterations",
            "run_iteration",
            "started_at",
            "matrix",
        }
    ),
    RotationEnded: frozenset(
        [
            "agent",
            "spec",
            "mode",
            "iteration",
            "max_iterations",
            "run_iteration",
            "signal",
            "files_changed",
            "done_count",
            "elapsed",
            "note",
            "downgraded",
            "matrix",
            "usage",
            "checks",
        ]
    ),
    Notice: frozenset({"level", "message"}),
    RunEnded: frozenset(
        {
            "exit_code",
            "reason",
            "iteration",
            "max_iterations",
            "run_iteration",
            "matrix",
            "usage",
            "costs",
            "totals",
        }
    ),
    PoolChanged: frozenset({"seats"}),
    Waiting: frozenset({"until", "reason"}),
    CancelRequested: frozenset({"mode"}),
}


def _value_text(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        inner = ", ".join(f"{k} {_value_text(v)}" for k, v in value.items() if v not in (None, ""))
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return clean_line(str(value))


def extra_fields_text(event: Event) -> str:
    """`, name value` for each field of `event` the plain line does not already say."""
    known = _RENDERED.get(type(event), frozenset({"matrix"}))
    parts = [
        f"{name.replace('_', ' ')} {_value_text(value)}"
        for name, value in event_fields(event).items()
        if name not in known and value not in (None, "", [], {})
    ]
    return "".join(f", {part}" for part in parts)


def wanted(event: Event, *, verbose: bool, quiet: bool) -> bool:
    """Which events a headless display prints: agent output only when verbose; when quiet,
    only warnings and the end of the run."""
    if isinstance(event, AgentOutput):
        return verbose and not quiet
    if isinstance(event, CostsUpdated):  # for the panel's footer; run_ended carries the costs
        return False
    if quiet:
        return isinstance(event, (RunEnded, Waiting)) or (
            isinstance(event, Notice) and event.level == "warning"
        )
    return True


class LineDisplay(Closing):
    """A display that writes whole lines to a stream (plain text or JSON), stamped by `clock`."""

    def __init__(
        self,
        stream: TextIO,
        *,
        verbose: bool = False,
        quiet: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.stream = stream
        self.verbose = verbose
        self.quiet = quiet
        self._clock = clock


class PlainDisplay(LineDisplay):
    """One timestamped line per event, never an escape sequence: safe for CI logs and pipes."""

    def _write(self, *texts: str) -> None:
        """One timestamped line per text, written and flushed together."""
        stamp = time.strftime("%H:%M:%S", time.localtime(self._clock()))
        # Whatever a name or a message holds, each text stays one line that drives nothing.
        line = "".join(f"{stamp} {printable(text)}\n" for text in texts)
        try:
            self.stream.write(line)
        except UnicodeEncodeError:
            # A pipe with an ASCII-only encoding must not end the run over an arrow or a dash.
            ascii_line = line.replace("→", "->").replace("—", "-").replace("…", "...")
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            self.stream.write(ascii_line.encode(encoding, "replace").decode(encoding))
        # Each line must reach a CI log as it happens, not when a buffer fills.
        self.stream.flush()

    def handle(self, event: Event) -> None:
        if not wanted(event, verbose=self.verbose, quiet=self.quiet):
            return
        extra = extra_fields_text(event)
        if isinstance(event, RunStarted):
            self._write(
                f"run started: agent {event.agent}, {plural(len(event.matrix), 'spec')}, "
                f"budget {plural(event.max_iterations, 'rotation')} "
                f"(numbered from {event.iteration + 1}){extra}"
            )
        elif isinstance(event, RotationStarted):
            where = run_progress(event.iteration, event.run_iteration, event.max_iterations)
            self._write(f"rotation {where} [{event.mode}] {event.spec} ({event.agent}){extra}")
        elif isinstance(event, AgentOutput):
            self._write(*(f"  | {clean_line(line)}" for line in event.lines))
        elif isinstance(event, RotationEnded):
            text = (
                f"rotation {event.iteration} ended: {event.signal}, "
                f"{files_changed(event.files_changed)}, "
                f"{event.spec} {event.done_count}/{TARGET} ({format_seconds(event.elapsed)}"
                + (f", checks {format_seconds(event.checks)})" if event.checks else ")")
            )
            if event.downgraded:
                text += f", downgraded 3/3→2/3: {', '.join(event.downgraded)}"
            if event.note:
                text += f", note: {clean_line(event.note)}"
            if event.usage is not None:
                text += f", usage: {format_tally(event.usage)}"
            self._write(text + extra)
        elif isinstance(event, CancelRequested):
            how = "now" if event.mode == "now" else "after the current rotation"
            self._write(f"ralph cancel: stopping {how}")
        elif isinstance(event, PoolChanged):
            pass  # benching and eviction each come with a Notice line
        elif isinstance(event, Waiting):
            left = format_clock(event.until - self._clock())
            until = time.strftime("%H:%M:%S", time.localtime(event.until))
            self._write(
                f"waiting until {until} ({left} left): {clean_line(event.reason)}; Ctrl-C stops"
            )
        elif isinstance(event, Notice):
            prefix = "warning: " if event.level == "warning" else ""
            self._write(prefix + clean_line(event.message) + extra)
        elif isinstance(event, RunEnded):
            self._write(
                f"run ended: {clean_line(event.reason)} (exit {event.exit_code}), "
                "last rotation "
                f"{run_progress(event.iteration, event.run_iteration, event.max_iterations)}{extra}"
            )
            if self.quiet:
                return
            width = max((len(row.path) for row in event.matrix), default=0)
            for row in event.matrix:
                status = status_text(row.last_status) + tests_text(row.tests)
                self._write(f"  {row.path:<{width}} {counter(row)} {status}")
            if event.totals is not None and event.totals.rotations:
                self._write(f"this run: {totals_line(event.totals)}")
            elif event.usage is not None and usage_reported(event.usage):
                self._write(f"usage this run: {format_tally(event.usage)}")
            found = costs_from_json(event.costs)
            spent = None if found is None else merge(found.spent_verified, found.spent_open)
            line = costs_line(found) if found and spent and usage_reported(spent) else None
            if line:  # one readable line, never the JSON structure (that is in --report-json)
                self._write(f"costs: {line}")
        else:  # an event type this display does not know yet: its name and fields
            self._write(event_name(event).replace("_", " ") + ":" + extra.lstrip(","))

    def close(self) -> None:
        # The stream belongs to the caller (often sys.stdout): flush it, never close it.
        with contextlib.suppress(ValueError):  # already closed by its owner
            self.stream.flush()
