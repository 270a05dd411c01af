"""The live display for terminals: a Rich panel refreshed ~4 times a second, with a permanent
line per rotation above it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ralph.rules.counts.state import MAX_COUNT as TARGET
from ralph.rules.counts.usage import format_tally
from ralph.run.events import AgentOutput, Event, Notice, RotationEnded, RunEnded
from ralph.ui.closing import Closing
from ralph.ui.panel import MODE_STYLES, matrix_table, render_panel
from ralph.ui.panelfit import shorten_left
from ralph.ui.panelview import PanelView, apply_event
from ralph.ui.statustable import SIGNAL_STYLES, run_progress
from ralph.ui.text import (
    clean_line,
    files_changed,
    format_clock,
    printable,
    totals_line,
    usage_reported,
)

if TYPE_CHECKING:
    # Type-only: importing rich at module level would cost start-up time for every command.
    from collections.abc import Callable

    from rich.console import Console, RenderableType
    from rich.live import Live
    from rich.text import Text


SPEC_WIDTH = 48  # a spec path in a rotation's scroll-back line, shortened from the left


class LiveDisplay(Closing):
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
        width, height = self.console.size
        # one line spare: the cursor sits below the panel
        return render_panel(self._view, self._clock(), (width, max(1, height - 1)))

    def _start(self) -> Live:
        # Started on the first event rather than in __init__ so that building a display
        # (for example to pick one) draws nothing and starts no refresh thread.
        if self._live is not None and not self._live.is_started:
            # Paused to ask the user something: a new Live starts below the question. The old
            # one would move the cursor up by the panel it drew before, over the question.
            self._live = None
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
            print_rotation(self.console, event)
        elif isinstance(event, Notice):
            style = "bold yellow" if event.level == "warning" else "dim"
            prefix = "warning: " if event.level == "warning" else ""
            self.console.print(f"{prefix}{clean_line(event.message)}", style=style, markup=False)
        if not isinstance(event, AgentOutput):
            # Agent lines can arrive many times a second: leave those to the timed refresh.
            live.refresh()

    def _print_final(self, event: RunEnded) -> None:
        from rich.text import Text

        self.console.print(matrix_table(event.matrix, current=None, limit=None))
        ok = event.exit_code == 0
        line = Text()
        line.append(
            "finished: " if ok else f"stopped (exit {event.exit_code}): ",
            style="bold green" if ok else "bold red",
        )
        line.append(clean_line(event.reason))
        where = run_progress(event.iteration, event.run_iteration, event.max_iterations)
        line.append(f" · last rotation {where}", style="dim")
        if event.totals is not None and event.totals.rotations:
            line.append(f"\nthis run: {totals_line(event.totals)}", style="dim")
        elif event.usage is not None and usage_reported(event.usage):
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
    text.append(
        f"rotation {run_progress(event.iteration, event.run_iteration, event.max_iterations)} ",
        style="dim",
    )
    text.append(f"[{event.mode}] ", style=MODE_STYLES.get(event.mode, ""))
    text.append(f"{shorten_left(event.spec, SPEC_WIDTH)}: ")
    text.append(event.signal, style=SIGNAL_STYLES.get(event.signal, "bold"))
    text.append(f" · {files_changed(event.files_changed)}")
    text.append(
        f" · {event.done_count}/{TARGET}", style="green" if event.done_count >= TARGET else ""
    )
    text.append(f" · {format_clock(event.elapsed)}", style="dim")
    if event.checks:
        text.append(f" (checks {format_clock(event.checks)})", style="dim")
    if event.downgraded:
        names = printable(", ".join(event.downgraded))
        text.append(f" · downgraded 3/3→2/3: {names}", style="yellow")
    if event.note:
        text.append(f" · {clean_line(event.note)}", style="italic")
    if event.usage is not None:
        text.append(f" · {format_tally(event.usage)}", style="dim")
    return text


def print_rotation(console: Console, event: RotationEnded) -> None:
    """A rotation's line in the scroll-back, on one line whatever the width (cut at the end:
    the worklog and the history keep all of it)."""
    console.print(_summary_text(event), no_wrap=True, overflow="ellipsis")
