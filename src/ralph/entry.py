"""The `ralph` console script. `ralph status` skips Typer, whose import alone costs ~100 ms.

Scripts and shell prompts poll `ralph status [--json]`, so it has to start fast; every other
command line (and any status line with other options) goes through Typer in cli.py.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PROJECT_OPTIONS = ("-C", "--project")


def project_option_first(args: list[str]) -> list[str]:
    """`ralph -C DIR CMD ...` as `ralph CMD -C DIR ...`: -C works before the command as git's
    does, and each command (which owns the option) gets it after its name."""
    if len(args) >= 3 and args[0] in PROJECT_OPTIONS:
        return [args[2], args[0], args[1], *args[3:]]
    if len(args) >= 2 and args[0].startswith("--project="):
        return [args[1], args[0], *args[2:]]
    return args


def plain_status_root(args: Sequence[str]) -> Path | None:
    """The project root when `args` is exactly `status [--json] [-C DIR]`, else None."""
    if not args or args[0] != "status":
        return None
    root = Path()
    seen_json = seen_root = False
    rest = list(args[1:])
    while rest:
        arg = rest.pop(0)
        if arg == "--json" and not seen_json:
            seen_json = True
        elif arg in ("-C", "--project") and rest and not seen_root:
            root, seen_root = Path(rest.pop(0)), True
        elif arg.startswith("--project=") and not seen_root:
            root, seen_root = Path(arg.partition("=")[2]), True
        else:
            return None  # anything else: Typer parses it and explains what is wrong
    if not root.is_dir():
        return None
    from ralph.store.disk.root import find_root

    return find_root(root.resolve())


def printable_output() -> None:
    """Output that cannot encode ralph's characters (—, ·, …, →) must not end a command with a
    traceback. On Windows, output piped or redirected (a CI log, a file) is in the ANSI code page:
    it becomes UTF-8, as a Windows console already is. Elsewhere (an ASCII locale, a forced
    PYTHONIOENCODING) the encoding stays and what it cannot encode is replaced."""
    for stream in (sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper) or stream.encoding.lower() in _UTF8:
            continue
        if sys.platform == "win32" and not stream.isatty():
            stream.reconfigure(encoding="utf-8", errors="replace")
        else:
            stream.reconfigure(errors="replace")


_UTF8 = ("utf-8", "utf8")


def main(argv: Sequence[str] | None = None) -> Any:
    """The `ralph` command. Its output cut short by its reader (`| head`) ends it quietly
    with exit code 141, whenever that is found: mid-output or at the last flush."""
    from ralph.errors import broken_pipe

    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        sys.exit(broken_pipe())
    except SystemExit as exc:
        if not isinstance(exc.__context__, BrokenPipeError):
            raise
        sys.exit(broken_pipe())  # Typer's own exit on a closed pipe is 1: ralph's is 141


def _main(argv: Sequence[str] | None) -> Any:
    printable_output()
    args = project_option_first(list(sys.argv[1:] if argv is None else argv))
    root = plain_status_root(args)
    if root is None:
        from ralph.cli import main as cli_main

        return cli_main(args)
    from ralph.commands.status import print_status
    from ralph.errors import RalphError, report
    from ralph.rules.text.printable import printable

    try:
        print_status(root, as_json="--json" in args)
    except (RalphError, OSError, KeyboardInterrupt) as exc:
        sys.exit(report(exc, printable))
    return None
