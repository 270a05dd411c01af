"""Splitting a command line into argv the way the platform's users write one.

On Linux and macOS, as a POSIX shell would (`shlex`): quotes group, a backslash escapes. On
Windows a backslash is a path separator, so it stays literal (`C:\\tools\\agent.exe`); double
and single quotes still group words (`"C:\\Program Files\\agent.exe" --flag`).
"""

from __future__ import annotations

import shlex


def split_command(command: str, *, windows: bool) -> list[str]:
    """argv of `command`; ValueError on an unbalanced quote (the caller names the key)."""
    if not windows:
        return shlex.split(command)
    lexer = shlex.shlex(command, posix=True)
    lexer.whitespace_split = True
    lexer.escape = ""  # backslashes are path separators, never escapes
    lexer.commenters = ""  # `#` is an ordinary character, as in shlex.split
    return list(lexer)
