"""What kind of output ralph is writing to: a terminal, CI, a pipe; headless or not; colour or not.

Headless is decided here and only here: the display and the escalation prompt both ask.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


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


def ci_environment(env: Mapping[str, str] | None = None) -> bool:
    """`CI` set to anything but empty, 0 or false: the convention every CI service follows."""
    value = (os.environ if env is None else env).get("CI", "")
    return value.strip().lower() not in ("", "0", "false", "no")


def is_headless(
    stream: object, *, forced: bool = False, env: Mapping[str, str] | None = None
) -> bool:
    """No live panel and no prompts: asked for, in CI, or when `stream` is not a terminal.

    For the display `stream` is stdout; for an escalation prompt it is stdin (no one to answer).
    """
    return forced or ci_environment(env) or not is_terminal(stream)


def colour_disabled(no_color: bool = False) -> bool:
    # https://no-color.org: any non-empty NO_COLOR disables colour; bold and dim stay allowed.
    return no_color or bool(os.environ.get("NO_COLOR"))


def terminal_confirm() -> Callable[[str], bool] | None:
    """A yes/no question on the terminal (`ralph accept`, `ralph reset --lanes`); None when
    there is no terminal to ask on."""
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None

    def ask(question: str) -> bool:
        try:
            answer = input(question)
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    return ask
