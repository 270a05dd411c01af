"""The live panel drawn from a PanelView: title, spec matrix, last rotation, usage, agents.

Rendering is pure (the caller supplies the clock); rich is imported inside each function so
that importing the displays costs no start-up time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph.rules.agents.pool import Seat, describe
from ralph.rules.counts.state import MAX_COUNT as TARGET
from ralph.rules.counts.usage import format_tally
from ralph.rules.text.words import plural
from ralph.run.events import RotationEnded, SpecRow
from ralph.ui.panelfit import Fit, fit, shorten_left
from ralph.ui.panelview import PanelView
from ralph.ui.statustable import SIGNAL_STYLES, counter, run_progress, status_text, tests_text
from ralph.ui.text import clean_line, files_changed, format_clock, printable, usage_reported

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import RenderableType
    from rich.panel import Panel
    from rich.text import Text

MATRIX_LIMIT = 12  # specs listed in the panel before "… and N more"
MODE_STYLES = {"IMPLEMENT": "cyan", "REVIEW": "magenta", "VERIFY": "bold blue"}
_DOING = {"IMPLEMENT": "implementing…", "REVIEW": "reviewing…", "VERIFY": "verifying…"}


def _title(view: PanelView) -> Text:
    from rich.text import Text

    title = Text()
    # while waiting no agent is at work: the last one's name would read as if it were
    name = "ralph" if view.waiting_until is not None else view.agent or "ralph"
    title.append(printable(name), style="bold")
    if view.phase == "running":
        doing = _DOING.get(view.mode or "", "implementing…")
        title.append(f" {doing}", style=MODE_STYLES.get(view.mode or "", ""))
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
    text.append(last.signal, style=SIGNAL_STYLES.get(last.signal, "bold"))
    text.append(f" · {files_changed(last.files_changed)}")
    if last.downgraded:
        text.append(f" · {plural(len(last.downgraded), 'spec')} 3/3→2/3", style="yellow")
    if last.note:
        text.append(f" · {clean_line(last.note)}", style="italic")
    return text


def matrix_table(
    matrix: Sequence[SpecRow], *, current: str | None, limit: int | None
) -> RenderableType:
    """The whole matrix (or its first `limit` rows and the current spec's)."""
    fitted = fit(matrix, current, (), fixed=0, size=None, limit=limit or len(matrix))
    return _matrix(fitted, current, len(matrix))


def _matrix(fitted: Fit, current: str | None, total: int) -> RenderableType:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    if not total:
        return Text("no specs", style="dim")
    shown = fitted.rows
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)  # marker of the current spec
    # path: shortened from the left to the terminal (the end names the spec); with no
    # terminal size, folded rather than cut, it must stay exact
    grid.add_column(overflow="fold" if fitted.path_width is None else "ellipsis", ratio=1)
    grid.add_column(no_wrap=True)  # counter
    grid.add_column(no_wrap=True)  # last status
    grid.add_column(width=1, no_wrap=True)  # verified tick
    for row in shown:
        is_current = row.path == current
        verified = row.done_count >= TARGET
        grid.add_row(
            Text("▶", style="bold") if is_current else "",
            Text(shorten_left(row.path, fitted.path_width), style="bold" if is_current else ""),
            Text(counter(row), style="green" if verified else ""),
            Text(
                status_text(row.last_status), style=SIGNAL_STYLES.get(row.last_status or "", "dim")
            ).append(tests_text(row.tests), style="dim"),
            Text("✓", style="bold green") if verified else "",
        )
    if fitted.summary is None:
        return grid
    summary = Text(fitted.summary, style="dim", no_wrap=True, overflow="ellipsis")
    # the counts lead when rows were picked around the current spec, follow a cut list
    return Group(grid, summary) if fitted.summary.startswith("…") else Group(summary, grid)


def lanes_table(view: PanelView, now: float) -> RenderableType:
    """`--parallel`: one row per lane at work (spec, agent, mode, rotation, elapsed, counter)."""
    from rich.table import Table
    from rich.text import Text

    if not view.running:
        return Text("none running", style="dim")
    counts = {row.path: row for row in view.matrix}
    grid = Table.grid(padding=(0, 1))
    grid.add_column(overflow="fold", ratio=1)
    for _ in range(5):
        grid.add_column(no_wrap=True)
    for lane in sorted(view.running, key=lambda r: r.iteration):
        row = counts.get(lane.spec)
        grid.add_row(
            Text(printable(lane.spec)),
            Text(printable(lane.agent), style="dim"),
            Text(lane.mode, style=MODE_STYLES.get(lane.mode, "")),
            Text(f"#{lane.iteration}"),
            Text(format_clock(now - lane.started_at)),
            Text(counter(row) if row is not None else "—"),
        )
    return grid


def _usage_text(view: PanelView) -> Text:
    from rich.text import Text

    text = Text(format_tally(view.run_usage))
    if len(view.agent_usage) > 1:
        for name, tally in view.agent_usage:
            text.append(f"\n{printable(name)}: {format_tally(tally)}", style="dim")
    return text


def _seats_text(seats: Sequence[Seat], now: float) -> Text:
    from rich.text import Text

    text = Text()
    for i, seat in enumerate(seats):
        if i:
            text.append(" · ", style="dim")
        if seat.available(now):
            text.append(printable(seat.name), style="green")
        else:
            text.append(printable(describe(seat, now)), style="red" if seat.evicted else "yellow")
    return text


def render_panel(view: PanelView, now: float, size: tuple[int, int] | None = None) -> Panel:
    """The live panel for `view` at time `now` (pure: the caller supplies the clock), fitted
    to a terminal of `size` (width, height) when given: every status row on one line, the
    matrix collapsed to what fits, the agent's last lines kept."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    width = None if size is None else max(8, size[0] - 4 - 11)  # borders, padding, labels
    head = [("Spec:", Text(shorten_left(view.spec, width)) if view.spec else Text("—"))]
    iteration = Text(run_progress(view.iteration, view.run_iteration, view.max_iterations))
    if view.mode is not None:
        iteration.append(f" [{view.mode}]", style=MODE_STYLES[view.mode])
    head.append(("Iteration:", iteration))
    if not view.spec:
        head[0][1].stylize("dim")

    if view.phase == "running" and view.started_at is not None:
        elapsed = Text(format_clock(now - view.started_at))
    elif view.elapsed is not None:
        elapsed = Text(format_clock(view.elapsed))
    else:
        elapsed = Text("—", style="dim")
    tail = [("Elapsed:", elapsed), ("Last:", _last_text(view.last))]
    if usage_reported(view.run_usage):
        tail.append(("Usage:", _usage_text(view)))
    if view.costs:
        tail.append(("Cost:", Text(view.costs)))
    if len(view.seats) > 1 or any(not s.available(now) for s in view.seats):
        tail.append(("Agents:", _seats_text(view.seats, now)))
    if view.waiting_until is not None:
        waiting = Text(f"{format_clock(view.waiting_until - now)} left", style="bold yellow")
        if view.waiting_reason:
            waiting.append(f" · {clean_line(view.waiting_reason)}", style="yellow")
        waiting.append(" · Ctrl-C stops", style="dim")
        tail.append(("Waiting:", waiting))
    if view.cancel is not None and view.phase != "finished":
        how = "now" if view.cancel == "now" else "after this rotation"
        tail.append(("Cancel:", Text(f"stopping {how} (ralph cancel)", style="bold yellow")))

    # Blocks above the matrix (status rows now; a block of lane rows can join them) count
    # against the height first; the matrix and the agent's lines share what is left.
    lanes = lanes_table(view, now) if view.lanes else None  # a block above the matrix
    fixed = sum(text.plain.count("\n") + 1 for _, text in (*head, *tail))
    fixed += max(1, len(view.running)) if lanes is not None else 0
    fitted = fit(view.matrix, view.spec, view.output, fixed=fixed, size=size, limit=MATRIX_LIMIT)
    rows = Table.grid(padding=(0, 1))
    rows.add_column(style="bold", no_wrap=True, min_width=10)  # "Iteration:" whole
    rows.add_column(ratio=1, no_wrap=size is not None, overflow="ellipsis")
    for label, text in head:
        rows.add_row(label, text)
    if lanes is not None:
        rows.add_row("Lanes:", lanes)
    rows.add_row("Specs:", _matrix(fitted, view.spec, len(view.matrix)))
    for label, text in tail:
        rows.add_row(label, text)

    body: list[RenderableType] = [rows]
    if fitted.output:
        body.append(Text(""))
        body.extend(
            Text(line, style="dim", no_wrap=True, overflow="ellipsis") for line in fitted.output
        )
    return Panel(
        Group(*body),
        title=_title(view),
        title_align="left",
        border_style=_border_style(view),
        padding=(0, 1),
    )
