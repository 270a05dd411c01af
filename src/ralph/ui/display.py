"""Displays for the loop's events: a live Rich panel for terminals, plain lines for CI and pipes."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, Protocol, TextIO, TypeVar

from ralph.rules.pool import Seat, describe
from ralph.rules.prompt import Mode
from ralph.rules.state import MAX_COUNT as TARGET
from ralph.rules.state import Tally
from ralph.rules.usage import UNREPORTED, format_tally, merge
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    Waiting,
    event_fields,
    event_name,
)
from ralph.ui.statustable import SIGNAL_STYLES as _SIGNAL_STYLES
from ralph.ui.statustable import counter as _counter
from ralph.ui.statustable import progress as _progress
from ralph.ui.statustable import status_text as _status

if TYPE_CHECKING:
    # Type-only: importing rich at module level would cost start-up time for every command.
    from collections.abc import Callable, Mapping, Sequence
    from types import TracebackType

    from rich.console import Console, RenderableType
    from rich.live import Live
    from rich.panel import Panel
    from rich.text import Text

__all__ = [
    "OUTPUT_LINES",
    "Display",
    "JsonDisplay",
    "LiveDisplay",
    "PanelView",
    "PlainDisplay",
    "apply_event",
    "clean_line",
    "make_display",
    "render_panel",
]

OUTPUT_LINES = 8  # agent lines the panel keeps: enough context without pushing the matrix away
MATRIX_LIMIT = 12  # specs listed in the panel before "… and N more"
Phase = Literal["waiting", "starting", "running", "idle", "finished"]

# CSI and OSC sequences, other two-byte escapes, then lone C0/C1 control characters:
# agent CLIs colour their output, and those bytes must never reach a log or corrupt the panel.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)

_MODE_STYLES = {"IMPLEMENT": "cyan", "REVIEW": "magenta", "VERIFY": "bold blue"}
_DOING = {"IMPLEMENT": "implementing…", "REVIEW": "reviewing…", "VERIFY": "verifying…"}


class Display(Protocol):
    """What the loop talks to; every display is also a context manager that closes itself."""

    def handle(self, event: Event) -> None: ...

    def close(self) -> None: ...

    def __enter__(self) -> Display: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


_D = TypeVar("_D", bound="_Closing")


class _Closing:
    """Context-manager plumbing shared by the displays."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _D) -> _D:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --------------------------------------------------------------------------- text helpers


def clean_line(text: str) -> str:
    """Agent text made safe to print: escape sequences and control characters removed."""
    # A carriage return means the agent redrew the line (progress bars): only the last draw counts.
    if "\r" in text:
        text = text.rstrip("\r").rsplit("\r", 1)[-1]
    return _ESCAPES.sub("", text).expandtabs(4).rstrip()


def format_clock(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss` past an hour); negative values (clock skew) show as 0:00."""
    total = int(max(0.0, seconds))
    minutes, secs = divmod(total, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def _format_seconds(seconds: float) -> str:
    # Short rotations keep a decimal (useful for fast agents); long ones read better as m:ss.
    if seconds < 60:
        return f"{max(0.0, seconds):.1f} s"
    return format_clock(seconds)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _files_changed(count: int) -> str:
    return f"{_plural(count, 'file')} changed"


# --------------------------------------------------------------------------- panel model


@dataclass(frozen=True)
class PanelView:
    """Everything the live panel shows, built only from events (so rendering needs no I/O)."""

    agent: str | None = None
    phase: Phase = "waiting"
    spec: str | None = None
    mode: Mode | None = None
    iteration: int = 0
    max_iteration: int | None = None
    started_at: float | None = None  # of the running rotation
    elapsed: float | None = None  # of the last finished rotation, frozen once it ended
    matrix: tuple[SpecRow, ...] = ()
    last: RotationEnded | None = None
    output: tuple[str, ...] = ()  # the running rotation's last OUTPUT_LINES agent lines
    exit_code: int | None = None
    reason: str | None = None
    run_usage: Tally = field(default_factory=Tally)  # what this run spent, as reported
    agent_usage: tuple[tuple[str, Tally], ...] = ()  # the same per agent
    seats: tuple[Seat, ...] = ()  # the pool's agents: benched, evicted or ready
    waiting_until: float | None = None  # no agent available: waiting for a limit to reset
    waiting_reason: str | None = None


def _count_usage(view: PanelView, event: RotationEnded) -> PanelView:
    spent = event.usage if event.usage is not None else UNREPORTED
    agents = dict(view.agent_usage)
    agents[event.agent] = merge(agents.get(event.agent, Tally()), spent)
    return replace(view, run_usage=merge(view.run_usage, spent), agent_usage=tuple(agents.items()))


def apply_event(view: PanelView, event: Event) -> PanelView:
    """The view after `event`; pure, so the panel can be tested without a terminal or a clock."""
    if isinstance(event, RunStarted):
        return replace(
            view,
            agent=event.agent,
            phase="starting",
            iteration=event.iteration,
            max_iteration=event.max_iteration,
            matrix=event.matrix,
            exit_code=None,
            reason=None,
            run_usage=Tally(),
            agent_usage=(),
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, RotationStarted):
        return replace(
            view,
            agent=event.agent,
            phase="running",
            spec=event.spec,
            mode=event.mode,
            iteration=event.iteration,
            max_iteration=event.max_iteration,
            started_at=event.started_at,
            elapsed=None,
            matrix=event.matrix,
            output=(),  # the previous agent's lines would be misread as this one's
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, AgentOutput):
        shown = tuple(clean_line(line) for line in event.lines[-OUTPUT_LINES:])
        return replace(view, output=(*view.output, *shown)[-OUTPUT_LINES:])
    if isinstance(event, RotationEnded):
        view = _count_usage(view, event)
        return replace(
            view,
            agent=event.agent,
            phase="idle",
            spec=event.spec,
            mode=event.mode,
            iteration=event.iteration,
            max_iteration=event.max_iteration,
            elapsed=event.elapsed,
            matrix=event.matrix,
            last=event,
        )
    if isinstance(event, RunEnded):
        return replace(
            view,
            phase="finished",
            iteration=event.iteration,
            max_iteration=event.max_iteration,
            matrix=event.matrix,
            exit_code=event.exit_code,
            reason=event.reason,
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, PoolChanged):
        return replace(view, seats=event.seats)
    if isinstance(event, Waiting):
        return replace(
            view,
            phase="waiting",
            waiting_until=event.until,
            waiting_reason=event.reason,
            started_at=None,
            output=(),
        )
    # Notices are printed above the panel by the live display; the panel itself does not change.
    return view


# --------------------------------------------------------------------------- panel rendering


def _title(view: PanelView) -> Text:
    from rich.text import Text

    title = Text()
    # while waiting no agent is at work: the last one's name would read as if it were
    name = "ralph" if view.waiting_until is not None else view.agent or "ralph"
    title.append(name, style="bold")
    if view.phase == "running":
        doing = _DOING.get(view.mode or "", "implementing…")
        title.append(f" {doing}", style=_MODE_STYLES.get(view.mode or "", ""))
    elif view.phase == "finished":
        if view.exit_code in (None, 0):
            title.append(" finished", style="green")
        else:
            title.append(f" stopped (exit {view.exit_code})", style="red")
    elif view.phase == "starting":
        title.append(" starting…", style="dim")
    elif view.phase == "idle":
        title.append(" idle", style="dim")
    elif view.waiting_until is not None:
        title.append(" waiting for a rate limit to reset", style="yellow")
    else:
        title.append(" waiting", style="dim")
    return title


def _border_style(view: PanelView) -> str:
    if view.phase == "finished":
        return "green" if view.exit_code in (None, 0) else "red"
    return "blue"


def _last_text(last: RotationEnded | None) -> Text:
    from rich.text import Text

    if last is None:
        return Text("—", style="dim")
    text = Text()
    text.append(last.signal, style=_SIGNAL_STYLES.get(last.signal, "bold"))
    text.append(f" · {_files_changed(last.files_changed)}")
    if last.downgraded:
        text.append(f" · {_plural(len(last.downgraded), 'spec')} 3/3→2/3", style="yellow")
    if last.note:
        text.append(f" · {clean_line(last.note)}", style="italic")
    return text


def _matrix_table(
    matrix: Sequence[SpecRow], *, current: str | None, limit: int | None
) -> RenderableType:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    if not matrix:
        return Text("no specs", style="dim")
    shown = list(matrix if limit is None else matrix[:limit])
    # The spec being worked on must stay visible even when it sorts past the cut.
    if current is not None and all(row.path != current for row in shown):
        shown.extend(row for row in matrix if row.path == current)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)  # marker of the current spec
    grid.add_column(overflow="fold", ratio=1)  # path: folded rather than cut, it must stay exact
    grid.add_column(no_wrap=True)  # counter
    grid.add_column(no_wrap=True)  # last status
    grid.add_column(width=1, no_wrap=True)  # verified tick
    for row in shown:
        is_current = row.path == current
        verified = row.done_count >= TARGET
        grid.add_row(
            Text("▶", style="bold") if is_current else "",
            Text(row.path, style="bold" if is_current else ""),
            Text(_counter(row), style="green" if verified else ""),
            Text(_status(row.last_status), style=_SIGNAL_STYLES.get(row.last_status or "", "dim")),
            Text("✓", style="bold green") if verified else "",
        )
    hidden = len(matrix) - len(shown)
    if hidden <= 0:
        return grid
    return Group(grid, Text(f"… and {hidden} more", style="dim"))


def _reported(tally: Tally) -> bool:
    """Did any rotation report tokens or a price (custom commands report neither)?"""
    return bool(tally.tokens) or tally.unpriced < tally.rotations


def _usage_text(view: PanelView) -> Text:
    from rich.text import Text

    text = Text(format_tally(view.run_usage))
    if len(view.agent_usage) > 1:
        for name, tally in view.agent_usage:
            text.append(f"\n{name}: {format_tally(tally)}", style="dim")
    return text


def _seats_text(seats: Sequence[Seat], now: float) -> Text:
    from rich.text import Text

    text = Text()
    for i, seat in enumerate(seats):
        if i:
            text.append(" · ", style="dim")
        if seat.available(now):
            text.append(seat.name, style="green")
        else:
            text.append(describe(seat, now), style="red" if seat.evicted else "yellow")
    return text


def render_panel(view: PanelView, now: float) -> Panel:
    """The live panel for `view` at time `now` (pure: the caller supplies the clock)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    rows = Table.grid(padding=(0, 1))
    rows.add_column(style="bold", no_wrap=True)
    rows.add_column(ratio=1)

    rows.add_row("Spec:", Text(view.spec, overflow="fold") if view.spec else Text("—", style="dim"))

    iteration = Text(_progress(view.iteration, view.max_iteration))
    if view.mode is not None:
        iteration.append(f" [{view.mode}]", style=_MODE_STYLES[view.mode])
    rows.add_row("Iteration:", iteration)

    rows.add_row("Specs:", _matrix_table(view.matrix, current=view.spec, limit=MATRIX_LIMIT))

    if view.phase == "running" and view.started_at is not None:
        elapsed = Text(format_clock(now - view.started_at))
    elif view.elapsed is not None:
        elapsed = Text(format_clock(view.elapsed))
    else:
        elapsed = Text("—", style="dim")
    rows.add_row("Elapsed:", elapsed)

    rows.add_row("Last:", _last_text(view.last))

    if _reported(view.run_usage):
        rows.add_row("Usage:", _usage_text(view))
    if len(view.seats) > 1 or any(not s.available(now) for s in view.seats):
        rows.add_row("Agents:", _seats_text(view.seats, now))
    if view.waiting_until is not None:
        waiting = Text(f"{format_clock(view.waiting_until - now)} left", style="bold yellow")
        if view.waiting_reason:
            waiting.append(f" · {clean_line(view.waiting_reason)}", style="yellow")
        waiting.append(" · Ctrl-C stops", style="dim")
        rows.add_row("Waiting:", waiting)

    body: list[RenderableType] = [rows]
    if view.output:
        body.append(Text(""))
        body.extend(
            Text(line, style="dim", no_wrap=True, overflow="ellipsis") for line in view.output
        )
    return Panel(
        Group(*body),
        title=_title(view),
        title_align="left",
        border_style=_border_style(view),
        padding=(0, 1),
    )


# --------------------------------------------------------------------------- live display


class LiveDisplay(_Closing):
    """A Rich live panel, refreshed ~4 times a second, with a permanent line per rotation."""

    def __init__(self, console: Console, *, clock: Callable[[], float] = time.time) -> None:
        self.console = console
        self._clock = clock
        self._view = PanelView()
        self._live: Live | None = None

    @property
    def view(self) -> PanelView:
        return self._view

    def _renderable(self) -> RenderableType:
        # Called from Live's refresh thread: it reads one immutable view, so no lock is needed.
        return render_panel(self._view, self._clock())

    def _start(self) -> Live:
        # Started on the first event rather than in __init__ so that building a display
        # (for example to pick one) draws nothing and starts no refresh thread.
        if self._live is not None and not self._live.is_started:
            self._live.start(refresh=True)  # paused to ask the user something; back on
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                console=self.console,
                refresh_per_second=4,
                transient=False,
                get_renderable=self._renderable,
            )
            self._live.start(refresh=True)
        return self._live

    def handle(self, event: Event) -> None:
        self._view = apply_event(self._view, event)
        if isinstance(event, RunEnded):
            self.close()
            self._print_final(event)
            return
        live = self._start()
        if isinstance(event, RotationEnded):
            self.console.print(_summary_text(event))
        elif isinstance(event, Notice):
            style = "bold yellow" if event.level == "warning" else "dim"
            prefix = "warning: " if event.level == "warning" else ""
            self.console.print(f"{prefix}{clean_line(event.message)}", style=style, markup=False)
        if not isinstance(event, AgentOutput):
            # Agent lines can arrive many times a second: leave those to the timed refresh.
            live.refresh()

    def _print_final(self, event: RunEnded) -> None:
        from rich.text import Text

        self.console.print(_matrix_table(event.matrix, current=None, limit=None))
        ok = event.exit_code == 0
        line = Text()
        line.append(
            "finished: " if ok else f"stopped (exit {event.exit_code}): ",
            style="bold green" if ok else "bold red",
        )
        line.append(event.reason)
        line.append(f" · iteration {_progress(event.iteration, event.max_iteration)}", style="dim")
        if event.usage is not None and _reported(event.usage):
            line.append(f" · usage {format_tally(event.usage)}", style="dim")
        self.console.print(line)

    def close(self) -> None:
        if self._live is not None and self._live.is_started:
            # A last refresh so the panel left on screen shows the final state.
            self._live.refresh()
            self._live.stop()


def _summary_text(event: RotationEnded) -> Text:
    from rich.text import Text

    text = Text()
    text.append(f"rotation {_progress(event.iteration, event.max_iteration)} ", style="dim")
    text.append(f"[{event.mode}] ", style=_MODE_STYLES.get(event.mode, ""))
    text.append(f"{event.spec}: ")
    text.append(event.signal, style=_SIGNAL_STYLES.get(event.signal, "bold"))
    text.append(f" · {_files_changed(event.files_changed)}")
    text.append(
        f" · {event.done_count}/{TARGET}", style="green" if event.done_count >= TARGET else ""
    )
    text.append(f" · {format_clock(event.elapsed)}", style="dim")
    if event.downgraded:
        text.append(f" · downgraded 3/3→2/3: {', '.join(event.downgraded)}", style="yellow")
    if event.note:
        text.append(f" · {clean_line(event.note)}", style="italic")
    if event.usage is not None:
        text.append(f" · {format_tally(event.usage)}", style="dim")
    return text


# --------------------------------------------------------------------------- plain display


# Fields each display already renders in its own words; any other field an event carries (a
# later addition such as usage or a check result) is appended as `name value`, never dropped.
_RENDERED: dict[type, frozenset[str]] = {
    RunStarted: frozenset({"agent", "iteration", "max_iteration", "matrix"}),
    RotationStarted: frozenset(
        {"agent", "spec", "mode", "iteration", "max_iteration", "started_at", "matrix"}
    ),
    RotationEnded: frozenset(
        [
            "agent",
            "spec",
            "mode",
            "iteration",
            "max_iteration",
            "signal",
            "files_changed",
            "done_count",
            "elapsed",
            "note",
            "downgraded",
            "matrix",
            "usage",
        ]
    ),
    Notice: frozenset({"level", "message"}),
    RunEnded: frozenset({"exit_code", "reason", "iteration", "max_iteration", "matrix", "usage"}),
    PoolChanged: frozenset({"seats"}),
    Waiting: frozenset({"until", "reason"}),
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


def _wants(event: Event, *, verbose: bool, quiet: bool) -> bool:
    """Which events a headless display prints: agent output only when verbose; when quiet,
    only warnings and the end of the run."""
    if isinstance(event, AgentOutput):
        return verbose and not quiet
    if quiet:
        return isinstance(event, (RunEnded, Waiting)) or (
            isinstance(event, Notice) and event.level == "warning"
        )
    return True


class _LineDisplay(_Closing):
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


class PlainDisplay(_LineDisplay):
    """One timestamped line per event, never an escape sequence: safe for CI logs and pipes."""

    def _write(self, *texts: str) -> None:
        """One timestamped line per text, written and flushed together."""
        stamp = time.strftime("%H:%M:%S", time.localtime(self._clock()))
        line = "".join(f"{stamp} {text}\n" for text in texts)
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
        if not _wants(event, verbose=self.verbose, quiet=self.quiet):
            return
        extra = extra_fields_text(event)
        if isinstance(event, RunStarted):
            self._write(
                f"run started: agent {event.agent}, {_plural(len(event.matrix), 'spec')}, "
                f"iteration {_progress(event.iteration, event.max_iteration)}{extra}"
            )
        elif isinstance(event, RotationStarted):
            self._write(
                f"rotation {_progress(event.iteration, event.max_iteration)} [{event.mode}] "
                f"{event.spec} ({event.agent}){extra}"
            )
        elif isinstance(event, AgentOutput):
            self._write(*(f"  | {clean_line(line)}" for line in event.lines))
        elif isinstance(event, RotationEnded):
            text = (
                f"rotation {event.iteration} ended: {event.signal}, "
                f"{_files_changed(event.files_changed)}, "
                f"{event.spec} {event.done_count}/{TARGET} ({_format_seconds(event.elapsed)})"
            )
            if event.downgraded:
                text += f", downgraded 3/3→2/3: {', '.join(event.downgraded)}"
            if event.note:
                text += f", note: {clean_line(event.note)}"
            if event.usage is not None:
                text += f", usage: {format_tally(event.usage)}"
            self._write(text + extra)
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
                f"iteration {_progress(event.iteration, event.max_iteration)}{extra}"
            )
            if self.quiet:
                return
            width = max((len(row.path) for row in event.matrix), default=0)
            for row in event.matrix:
                self._write(f"  {row.path:<{width}} {_counter(row)} {_status(row.last_status)}")
            if event.usage is not None and _reported(event.usage):
                self._write(f"usage this run: {format_tally(event.usage)}")
        else:  # an event type this display does not know yet: its name and fields
            self._write(event_name(event).replace("_", " ") + ":" + extra.lstrip(","))

    def close(self) -> None:
        # The stream belongs to the caller (often sys.stdout): flush it, never close it.
        with contextlib.suppress(ValueError):  # already closed by its owner
            self.stream.flush()


class JsonDisplay(_LineDisplay):
    """`--log-format json`: one JSON object per event on one line, for other tools to read.

    Each object has `ts` (epoch seconds), `event` (`rotation_ended`...) and the event's fields,
    whatever they are, so fields added to events later appear without changes here.
    """

    def handle(self, event: Event) -> None:
        import json

        if not _wants(event, verbose=self.verbose, quiet=self.quiet):
            return
        record = {"ts": round(self._clock(), 3), "event": event_name(event), **event_fields(event)}
        if isinstance(event, AgentOutput):
            record["lines"] = [clean_line(line) for line in event.lines]
        # ensure_ascii: a log reader with a narrow encoding still gets valid JSON.
        self.stream.write(json.dumps(record, default=str) + "\n")
        self.stream.flush()

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.stream.flush()


# --------------------------------------------------------------------------- choosing a display


def is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    if isatty is None:
        return False
    try:
        tty = bool(isatty())
    except ValueError:  # closed stream
        return False
    # A dumb terminal cannot move the cursor, which a live panel depends on.
    return tty and os.environ.get("TERM", "") != "dumb"


LogFormat = Literal["text", "json"]


def ci_environment(env: Mapping[str, str] | None = None) -> bool:
    """`CI` set to anything but empty, 0 or false: the convention every CI service follows."""
    value = (os.environ if env is None else env).get("CI", "")
    return value.strip().lower() not in ("", "0", "false", "no")


def is_headless(stream: object, *, forced: bool = False) -> bool:
    """No live panel and no prompts: asked for, in CI, or when stdout is not a terminal."""
    return forced or ci_environment() or not is_terminal(stream)


def colour_disabled(no_color: bool = False) -> bool:
    # https://no-color.org: any non-empty NO_COLOR disables colour; bold and dim stay allowed.
    return no_color or bool(os.environ.get("NO_COLOR"))


def make_display(
    *,
    stream: TextIO | None = None,
    force_plain: bool = False,
    no_color: bool = False,
    verbose: bool = False,
    quiet: bool = False,
    log_format: LogFormat = "text",
) -> Display:
    """The live panel on a terminal; plain lines (or JSON lines) when headless or asked to."""
    out: TextIO = sys.stdout if stream is None else stream
    if log_format == "json":
        return JsonDisplay(out, verbose=verbose, quiet=quiet)
    if quiet or is_headless(out, forced=force_plain):
        return PlainDisplay(out, verbose=verbose, quiet=quiet)
    from rich.console import Console

    console = Console(file=out, no_color=colour_disabled(no_color), highlight=False)
    return LiveDisplay(console)
