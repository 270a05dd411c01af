"""`ralph status`: the spec matrix as a Rich table on a terminal, aligned text elsewhere.

Kept apart from the live display and free of dataclasses so `ralph status` starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import RenderableType

from ralph.rules.counts.state import MAX_COUNT as TARGET
from ralph.rules.counts.state import Tally
from ralph.rules.counts.usage import format_tally
from ralph.rules.evidence.testcounts import TestCounts
from ralph.rules.text.printable import printable
from ralph.rules.text.words import plural

SIGNAL_STYLES = {
    "DONE": "bold green",
    "CONTINUE": "cyan",
    "ROTATE": "yellow",
    "STUCK": "bold red",
    "QUESTION": "bold red",
    "NONE": "yellow",
    "ERROR": "bold red",
    "REFUSED": "bold yellow",  # said DONE, but a completion check failed
    "VERIFY_PASS": "bold green",
    "VERIFY_FAIL": "bold red",
}


class MatrixRow(Protocol):
    """One spec's row: `state.SpecState` and `events.SpecRow` both fit."""

    @property
    def path(self) -> str: ...
    @property
    def done_count(self) -> int: ...
    @property
    def last_status(self) -> str | None: ...
    @property
    def modified_files(self) -> bool: ...
    @property
    def needs_work(self) -> bool: ...


BROKEN = "ERROR: front matter (see below)"  # a spec `ralph run` refuses: no counter to read


def progress(iteration: int, max_iteration: int | None) -> str:
    return str(iteration) if max_iteration is None else f"{iteration}/{max_iteration}"


def run_progress(iteration: int, run_iteration: int, max_iterations: int | None) -> str:
    """`12 (4/20 this run)`: the rotation's number for the life of the project, then its place
    in this run's own budget (a global maximum would grow run after run)."""
    if max_iterations is None:
        return str(iteration)
    if iteration == run_iteration:  # the project's first run: one number says both
        return f"{iteration}/{max_iterations}"
    return f"{iteration} ({run_iteration}/{max_iterations} this run)"


def counter(row: MatrixRow) -> str:
    return f"{row.done_count}/{TARGET}"


def status_text(status: str | None) -> str:
    return "—" if status is None else status


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _status_caption(
    *, iteration: int, max_iteration: int | None, running: bool, complete: bool
) -> str:
    budget = "" if max_iteration is None else f" (last run's budget {max_iteration})"
    return (
        f"iteration {iteration}{budget} · "
        f"{'run live' if running else 'no run'} · "
        f"{'complete' if complete else 'not complete'}"
    )


def usage_lines(usage: Tally | None, agents: Sequence[tuple[str, Tally]]) -> list[str]:
    """`usage: 12.3k in · 4.5k out · $0.42`, then one line per agent when there are several."""
    if usage is None or (not usage.tokens and usage.unpriced == usage.rotations):
        return []  # nothing reported (custom commands report no usage)
    lines = [f"usage: {format_tally(usage)}"]
    if len(agents) > 1:
        lines.extend(
            f"  {printable(name)}: {format_tally(t)} ({plural(t.rotations, 'rotation')})"
            for name, t in agents
        )
    return lines


def refusal_lines(rows: Sequence[MatrixRow]) -> list[str]:
    """Why each spec whose last DONE was refused was refused (the state keeps it)."""
    out: list[str] = []
    for row in rows:
        why = getattr(row, "refused", None)
        if why and row.last_status == "REFUSED":
            out.append(f"{printable(row.path)} refused: {printable(why)}")
    return out


def render_status_table(
    rows: Sequence[MatrixRow],
    *,
    iteration: int,
    max_iteration: int | None,
    running: bool,
    complete: bool,
    usage: Tally | None = None,
    agents: Sequence[tuple[str, Tally]] = (),
    broken: frozenset[str] = frozenset(),
) -> RenderableType:
    """The spec matrix for `ralph status` on a terminal."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    # No outer edge and short headers: long spec paths get the width instead of the borders.
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        collapse_padding=True,
        caption="\n".join(
            [
                _status_caption(
                    iteration=iteration,
                    max_iteration=max_iteration,
                    running=running,
                    complete=complete,
                ),
                *usage_lines(usage, agents),
                *refusal_lines(rows),
            ]
        ),
        caption_justify="left",
    )
    table.add_column("Spec", overflow="fold")
    table.add_column("Counter", no_wrap=True)
    table.add_column("Last status", no_wrap=True)
    table.add_column("Modified", no_wrap=True)
    table.add_column("Needs work", no_wrap=True)
    for row in rows:
        verified = row.done_count >= TARGET
        error = row.path in broken
        table.add_row(
            Text(printable(row.path)),
            Text(counter(row), style="green" if verified else ""),
            Text(BROKEN, style="bold red")
            if error
            else Text(
                status_text(row.last_status), style=SIGNAL_STYLES.get(row.last_status or "", "dim")
            ),
            _yes_no(row.modified_files),
            Text(_yes_no(row.needs_work or error), style="yellow" if row.needs_work else "green"),
        )
    return table


def render_status_plain(
    rows: Sequence[MatrixRow],
    *,
    iteration: int,
    max_iteration: int | None,
    running: bool,
    complete: bool,
    usage: Tally | None = None,
    agents: Sequence[tuple[str, Tally]] = (),
    broken: frozenset[str] = frozenset(),
) -> str:
    """The same information as `render_status_table`, as aligned text for pipes."""
    header = ("spec", "counter", "last status", "modified files", "needs work")
    cells: list[tuple[str, ...]] = [header]
    cells.extend(
        (
            printable(row.path),
            counter(row),
            BROKEN if row.path in broken else status_text(row.last_status),
            _yes_no(row.modified_files),
            _yes_no(row.needs_work or row.path in broken),
        )
        for row in rows
    )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in cells
    ]
    if not rows:
        lines.append("(no specs)")
    lines.append(
        _status_caption(
            iteration=iteration, max_iteration=max_iteration, running=running, complete=complete
        )
    )
    lines.extend(usage_lines(usage, agents))
    lines.extend(refusal_lines(rows))
    return "\n".join(lines) + "\n"


def tests_text(counts: TestCounts | None) -> str:
    """A spec's last test run, short: " 12 passed 1 skipped"."""
    if counts is None:
        return ""
    parts = [f"{counts.passed} passed"]
    parts += [
        f"{n} {word}" for n, word in ((counts.failed, "failed"), (counts.skipped, "skipped")) if n
    ]
    return " " + " ".join(parts)
