"""What the loop talks to (the Display protocol), and which display a run gets.

The live Rich panel on a terminal; plain lines for CI and pipes; JSON lines when asked. Each
display lives in its own module, imported only once chosen, so rich stays out of start-up.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Literal, Protocol, TextIO

from ralph.ui.terminal import colour_disabled, is_headless

if TYPE_CHECKING:
    from types import TracebackType

    from ralph.run.events import Event

LogFormat = Literal["text", "json"]


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
        from ralph.ui.jsonlines import JsonDisplay

        return JsonDisplay(out, verbose=verbose, quiet=quiet)
    if quiet or is_headless(out, forced=force_plain):
        from ralph.ui.plain import PlainDisplay

        return PlainDisplay(out, verbose=verbose, quiet=quiet)
    from rich.console import Console

    from ralph.ui.live import LiveDisplay

    console = Console(file=out, no_color=colour_disabled(no_color), highlight=False)
    return LiveDisplay(console)
