"""agents/stream.py: the shared part of the JSON-lines parsers, best-effort: a field of the
wrong shape reads as absent (never an error), a tool call is one telling line, and usage is
summed over a rotation's turns."""

from __future__ import annotations

from ralph.agents.result import Usage
from ralph.agents.stream import SUMMARY_MAX, UsageCounter, number, obj, text, tool_line, usage_line


def test_fields_of_the_wrong_shape_read_as_absent() -> None:
    assert obj({"a": 1}) == {"a": 1} and obj([1]) == {} and obj(None) == {}
    assert text("x") == "x" and text(3) == ""
    assert number(2) == 2.0 and number(1.5) == 1.5
    assert number(True) == 0.0 and number("7") == 0.0  # a bool or a string is no count


def test_a_tool_call_shows_its_most_telling_argument_on_one_line() -> None:
    assert tool_line("Bash", {"command": "pytest -q", "description": "run"}) == "[Bash] pytest -q"
    assert tool_line("shell", {"cmd": ["git", "status"]}) == "[shell] git status"
    assert tool_line("Custom", {"x": 1}) == '[Custom] {"x": 1}'
    assert tool_line("", {}) == "[tool]"
    long = tool_line("Read", {"file_path": "a" * 500})
    assert len(long) <= len("[Read] ") + SUMMARY_MAX and "\n" not in long


def test_usage_is_summed_over_the_turns_and_none_when_never_reported() -> None:
    counter = UsageCounter()
    assert counter.usage() is None
    counter.add(100, 20)
    counter.add(50.0, 5, cost=0.01)
    counter.add(0, 0, cost=0.02)
    assert counter.usage() == Usage(150, 25, 0.03)
    assert usage_line(counter.usage()) == "150 tokens in, 25 out, $0.0300"
    assert usage_line(Usage(1_000, 2)) == "1,000 tokens in, 2 out"  # no price reported
    assert usage_line(None) == ""
