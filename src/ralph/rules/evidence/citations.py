"""A judge's evidence, as it must cite it (pure): one line per piece of evidence, naming the
acceptance criterion it proves, and either a file and line with the text quoted from there, or
a command with what it printed.

    EVIDENCE 1: src/app.py:42 "return jwt.encode(payload, key)"
    EVIDENCE 2: $ pytest -q tests/test_auth.py => "3 passed"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

FORMAT = (
    'EVIDENCE <n>: <file>:<line> "<text quoted from that line>"   or   '
    'EVIDENCE <n>: $ <command> => "<what it printed>"'
)
_LINE = re.compile(r"^[\W_]*EVIDENCE\s*#?(?P<n>\d+)\s*[:.)-]\s*(?P<rest>.+)$", re.I)
_FILE = re.compile(
    r"^`?(?P<path>[^\s`\"]+?):(?P<line>\d+)`?\s*[-—:]?\s*(?P<q>[\"“'`])(?P<quote>.+)$"
)
_COMMAND = re.compile(r"^`?\$\s*(?P<cmd>.+?)`?\s*(?:=>|→|->)\s*(?P<q>[\"“'`])(?P<quote>.+)$")
_CLOSE = {'"': '"', "“": "”", "'": "'", "`": "`"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Citation:
    criterion: int  # 1-based, as the prompt numbers the criteria
    quote: str  # the text quoted from the file, or the command's output
    path: str | None = None  # a file citation: its path and line
    line: int = 0
    command: str | None = None  # a command citation

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.path is not None else f"$ {self.command}"
        return f"EVIDENCE {self.criterion}: {where}"


def parse_citations(text: str) -> list[Citation]:
    """Every well-formed evidence line of a judge's answer."""
    out: list[Citation] = []
    for raw in text.splitlines():
        m = _LINE.match(raw.strip())
        if m is None:
            continue
        rest, n = m["rest"].strip(), int(m["n"])
        if (f := _FILE.match(rest)) is not None:
            quote = _unquote(f["q"], f["quote"])
            if quote:
                out.append(Citation(n, quote, path=f["path"], line=int(f["line"])))
        elif (c := _COMMAND.match(rest)) is not None:
            quote = _unquote(c["q"], c["quote"])
            if quote and c["cmd"].strip():
                out.append(Citation(n, quote, command=c["cmd"].strip()))
    return out


def _unquote(opening: str, text: str) -> str:
    close = _CLOSE[opening]
    text = text.rstrip()
    if text.endswith(close):
        text = text[: -len(close)]
    return text.strip()


def normalize(text: str) -> str:
    return _SPACE.sub(" ", text.strip())


def uncovered(count: int, valid: Sequence[Citation]) -> list[int]:
    """The criteria (1..count) without a valid citation."""
    covered = {c.criterion for c in valid}
    return [n for n in range(1, count + 1) if n not in covered]
