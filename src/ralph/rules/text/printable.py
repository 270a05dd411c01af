"""Text made safe to show: names and lines that cannot drive the terminal or break a report.

A spec or file name is chosen by whoever wrote the repository, and an agent's or a check's output
is the agent's: either may hold escape sequences (set the window title, write the clipboard with
OSC 52, move the cursor to erase a line), a newline that forges a line of ralph's own, or
characters an XML 1.0 document cannot carry at all. Every edge that shows, logs or reports text
passes it through one of these three:

- `printable(name)`: one line, every control character shown as a visible escape (`\\n`,
  `\\x1b`), so a person sees that the name is odd instead of what it tries to do;
- `clean_line(line)` and `clean_text(text)`: output lines (one, or many with their newlines)
  with escape sequences and control characters removed: colours are noise, not content.

Both also drop what XML 1.0 forbids, so their results fit in a JUnit report as they are.
"""

from __future__ import annotations

import re
from functools import cache

# Escape sequences: CSI (colours, cursor movement), OSC (title, clipboard, hyperlinks) up to its
# terminator, other two-byte escapes; the 8-bit CSI and OSC introducers (\x9b, \x9d) likewise.
_SEQUENCES = (
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]P^_X]|[\x9d\x90\x9e\x9f\x98])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[@-Z\\-~ -/]?"
)
# Characters that control a terminal or reorder text (bidirectional overrides and isolates:
# "Trojan Source"), and what XML 1.0 cannot carry (lone surrogates, U+FFFE, U+FFFF).
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_NOT_XML = "\ud800-\udfff\ufffe\uffff"
_CONTROLS = "\x00-\x1f\x7f-\x9f" + _BIDI + _NOT_XML
_UNSAFE = re.compile(f"[{_CONTROLS}]")


@cache
def _escapes(kept: str) -> re.Pattern[str]:
    """Escape sequences and control characters but `kept` (the tab; the tab and the newline),
    compiled when first needed: `ralph status` shows names only."""
    controls = "".join(c for c in "".join(map(chr, range(0x20))) if c not in kept)
    return re.compile(f"{_SEQUENCES}|[{re.escape(controls)}\x7f-\x9f{_BIDI}{_NOT_XML}]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(name: str) -> str:
    """`name` on one line with every control character shown as an escape: `a\\x1b]0;x` for
    `a<ESC>]0;x`. Plain names come back as they are (the same object)."""
    if _UNSAFE.search(name) is None:
        return name
    return _UNSAFE.sub(_visible, name)


def printable_lines(text: str) -> str:
    """Lines ralph composed (a table, a report) with each line through `printable`: the line
    breaks are ralph's, whatever a name inside a line holds."""
    return "\n".join(printable(line) for line in text.split("\n"))


def clean_line(text: str) -> str:
    """One output line made safe to print: escape sequences and control characters removed,
    tabs expanded; a carriage return means the line was redrawn (progress bars): only the last
    drawing counts."""
    if "\r" in text:
        text = text.rstrip("\r").rsplit("\r", 1)[-1]
    return _escapes("\t").sub("", text.replace("\n", " ")).expandtabs(4).rstrip()


def clean_text(text: str) -> str:
    """Output of many lines (a check's, a diff) made safe to write or quote: escape sequences
    (colours: `--color=yes`) and control characters removed; newlines and tabs kept."""
    if "\r" not in text:  # the usual case: one pass over the whole text
        return _escapes("\t\n").sub("", text)
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(_clean_kept(line) for line in lines)


def _clean_kept(line: str) -> str:
    if "\r" in line:
        line = line.rstrip("\r").rsplit("\r", 1)[-1]
    return _escapes("\t").sub("", line)
