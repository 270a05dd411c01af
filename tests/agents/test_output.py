"""How raw output becomes display lines: the fast path for ordinary lines must not skip the
work that long lines and carriage returns need."""

from __future__ import annotations

from ralph.agents.output import MAX_LINE, LineSplitter, OutputParser
from ralph.process.request import StreamName


def split(*chunks: bytes, max_line: int = 50) -> list[str]:
    got: list[str] = []

    def emit(stream: StreamName, lines: tuple[str, ...]) -> None:
        got.extend(lines)

    splitter = LineSplitter(emit, max_line=max_line)
    for chunk in chunks:
        splitter.feed("stdout", chunk)
    splitter.close()
    return got


def test_short_lines_pass_through_unchanged() -> None:
    assert split(b"a\nbb\n", b"ccc\nd") == ["a", "bb", "ccc", "d"]


def test_a_carriage_return_at_a_line_end_is_dropped() -> None:
    assert split(b"one\r\ntwo\n") == ["one", "two"]


def test_a_long_line_among_short_ones_is_cut() -> None:
    lines = split(b"short\n" + b"x" * 80 + b"\nafter\n")

    assert lines == ["short", "x" * 50 + " …", "after"]


def test_the_plain_parser_bounds_only_what_is_too_long() -> None:
    parser = OutputParser()

    assert parser.feed("stdout", ["a", "b"]) == ("a", "b")
    shown = parser.feed("stdout", ["ok", "y" * (MAX_LINE + 10)])
    assert shown == ("ok", "y" * MAX_LINE + " …")
