"""What a failed check's command shows a person and the agent: the end of each of its streams
(stderr too, never crowded out by a long stdout), its own first error line
(rules/evidence/firsterror.py),
with the clean room's path taken out of both so that files read project-relative; and, when
that line names a package a file of the tree declares, that the checks' environment lacks it."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.environment.declares import declaring_file, is_declaring
from ralph.rules.evidence.firsterror import first_error, missing_module

OUTPUT_TAIL_LINES = 20  # lines of each stream of a failed check shown to the agent and the user
LINE_CHARS = 300
DECLARING_LIMIT = 1 << 20  # a declaring file larger than this declares nothing here


@dataclass(frozen=True)
class Failure:
    tail: str  # the end of stdout, then of stderr under a "(stderr)" line
    error: str | None  # the command's own first error line
    not_installed: str | None  # "`x` is declared by F but not installed in the checks' ..."


def failure(stdout: str, stderr: str, root: Path, room: Path | None) -> Failure:
    """What the failed command that ran at `root` (in `room`, when in one) printed, as shown."""
    out, err = relative(stdout, room), relative(stderr, room)
    error = first_error(out + ("\n" if out and not out.endswith("\n") else "") + err)
    tail = output_tail(out)
    if err.strip():
        tail = f"{tail}\n(stderr)\n{output_tail(err)}" if tail else output_tail(err)
    package = missing_module(error) if error is not None else None
    declared = declaring_file(package, _declaring(root)) if package is not None else None
    said = (
        f"`{package}` is declared by {declared} but not installed in the checks' environment"
        if declared is not None
        else None
    )
    return Failure(tail, error, said)


def relative(text: str, room: Path | None) -> str:
    """`text` with the room's path (as given and as resolved) taken out: `/store/rooms/a/src/x.py`
    reads `src/x.py`, the path a person and the agent know."""
    if room is None:
        return text
    for prefix in dict.fromkeys((str(room), str(room.resolve()))):
        if prefix in text:  # the prefix whole: a sibling `<room>.person` is another folder
            text = re.sub(re.escape(prefix) + rf"(?:{re.escape(os.sep)}|(?![\w.-]))", "", text)
    return text


def output_tail(output: str) -> str:
    lines = output.rstrip().splitlines()[-OUTPUT_TAIL_LINES:]
    return "\n".join(
        line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …" for line in lines
    )


def _declaring(root: Path) -> dict[str, str]:
    """The declaring files at `root` (name -> text), read as the store reads a tree's files: a
    link out, a pipe or a file too large is none."""
    from ralph.store.disk import reader

    out: dict[str, str] = {}
    try:
        names = sorted(p.name for p in root.iterdir() if is_declaring(p.name))
    except OSError:
        return out
    for name in names:
        try:
            out[name] = reader.read_text(root / name, limit=DECLARING_LIMIT, root=root)
        except (OSError, RalphError):
            continue
    return out
