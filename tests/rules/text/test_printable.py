"""The printable rule (rules/text/printable.py): a name shows every control character as a visible
escape; output lines and texts lose their escape sequences; ordinary text is left alone; what
comes out always fits in an XML 1.0 document."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from ralph.rules.text.printable import clean_line, clean_text, printable, printable_lines

HOSTILE = (
    "specs/a\x1b]0;owned\x07b"  # sets the terminal title
    "\x1b]52;c;cHduZWQ=\x07"  # writes the clipboard (OSC 52)
    "\n12:00:00 run ended: every spec verified (exit 0)"  # forges ralph's own last line
    "\x1b[1A\x1b[2K"  # moves the cursor up and erases the line
    "\x9b31m\u202e\x00\ufffe.spec.md"  # 8-bit CSI, bidi override, NUL, a non-character
)
ORDINARY = (
    "specs/api/users.spec.md",
    "PROMPT.md",
    "spécs/naïve — 日本語 [bold] ✓.spec.md",
    "rotation 3/20 [IMPLEMENT] specs/a.spec.md (claude), note: tests pass",
)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert printable(text) is text
    assert clean_line(text) == text
    assert clean_text(text + "\n\tindented\n") == text + "\n\tindented\n"


def test_a_hostile_name_shows_on_one_line_and_drives_nothing() -> None:
    shown = printable(HOSTILE)
    assert "\n" not in shown and "\r" not in shown
    assert all(ch.isprintable() for ch in shown)
    assert shown.startswith("specs/a\\x1b]0;owned\\x07b\\x1b]52;c;")
    assert "\\n12:00:00 run ended" in shown  # visible, not a line of its own
    assert "\\x9b31m\\u202e\\x00\\ufffe.spec.md" in shown


def test_a_lone_surrogate_is_shown_as_an_escape() -> None:
    # A file name that is not UTF-8 decodes to lone surrogates (surrogateescape): no XML, no
    # terminal and no UTF-8 encoder takes them. Compared as ASCII: pytest workers cannot even
    # report a failure that contains one.
    name = "specs/\udcff\ud800x.spec.md"
    assert ascii(printable(name)) == ascii("specs/\\udcff\\ud800x.spec.md")
    assert ascii(clean_line(name)) == ascii(clean_text(name)) == ascii("specs/x.spec.md")


def test_output_loses_its_escape_sequences() -> None:
    assert clean_line("\x1b[31mFAILED\x1b[0m test_x\x1b]0;t\x07 \x9b2K") == "FAILED test_x"
    assert clean_line("50%\r75%\r100%") == "100%"  # a redrawn progress line: its last drawing
    assert clean_line("a\nb") == "a b"  # one line stays one line
    text = "\x1b[1m===\x1b[0m\n\x1b[31mFAILED\x1b[0m tests/x.py::t\n\tE  assert 1\r\n"
    assert clean_text(text) == "===\nFAILED tests/x.py::t\n\tE  assert 1\n"
    # an escape sequence left unterminated takes nothing beyond its own line
    assert clean_text("a\x1b]0;no end\nline two\n") == "a\nline two\n"


@pytest.mark.parametrize("rule", [printable, clean_line, clean_text])
def test_what_comes_out_fits_in_xml(rule: object) -> None:
    assert callable(rule)
    value = rule(HOSTILE)
    element = ET.Element("testcase", name=value)
    element.text = value
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.get("name") == value


def test_printable_lines_keeps_ralphs_line_breaks_only() -> None:
    table = "name    state\nag\x1b]0;x\x07ent  ok\n"
    assert printable_lines(table) == "name    state\nag\\x1b]0;x\\x07ent  ok\n"
