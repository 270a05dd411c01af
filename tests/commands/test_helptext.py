"""commands/helptext.py: a refused command line in ralph's words, one line and a hint; no
Typer placeholder or range in --help (what --help shows whole is tests/test_help.py's)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ralph.commands.helptext import refused, usage_error, without_range
from ralph.errors import ExitCode


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (
            "Invalid value: 'x' is not a valid integer.",
            "-n: 'x' is not a whole number",
        ),
        ("Invalid value: 'x' is not a valid float range.", "-n: 'x' is not a number"),
        (
            "Invalid value: 0 is not in the range x>=1.",
            "-n: must be at least 1, got 0",
        ),
        (
            "Invalid value: 0.0 is not in the range x>0.",
            "-n: must be more than 0, got 0.0",
        ),
        (
            "Option '--max-iterations' requires an argument.",
            "-n: '--max-iterations' needs a value",
        ),
        ("something Click says", "-n: something Click says"),
    ],
)
def test_a_bad_value_is_said_in_ralphs_words(message: str, said: str) -> None:
    assert usage_error(message, "-n", None, ()) == said


def test_a_command_line_without_an_option_is_said_as_it_is() -> None:
    assert usage_error("No such command 'rnu'. Did you mean 'run'?", None, None, ()) == (
        "unknown command 'rnu' (did you mean 'run'?)"
    )
    assert usage_error("Got unexpected extra arguments (a b)", None, None, ()) == (
        "unexpected argument: a b"
    )


def test_an_unknown_option_names_the_closest_known_ones() -> None:
    said = usage_error("", None, "--max-iter", ["--max-iterations", "--max-cost", "--a", "--b"])
    assert said == "unknown option --max-iter (did you mean --a or --b or --max-cost?)"
    assert usage_error("", None, "--zzz", []) == "unknown option --zzz"


def test_the_bounds_leave_the_help_text() -> None:
    assert without_range("Rotations this run may make.  [x>=1]") == "Rotations this run may make."
    assert without_range("Seconds.  [default: 5; x>0.001]") == "Seconds.  [default: 5]"
    assert without_range("Plain.") == "Plain."


def test_a_refusal_is_one_error_line_a_hint_and_the_usage_exit_code() -> None:
    said: list[str] = []
    exc = SimpleNamespace(
        message="Invalid value: 'x' is not a valid integer.",
        param=SimpleNamespace(opts=["-n", "--max-iterations"]),
        ctx=SimpleNamespace(command_path="ralph run"),
    )
    assert refused(exc, said.append) == int(ExitCode.USAGE)
    assert said == [
        "error: --max-iterations: 'x' is not a whole number\n"
        "hint: ralph run --help lists the options"
    ]


def test_a_refused_line_quoting_control_characters_is_printable() -> None:
    said: list[str] = []
    refused(SimpleNamespace(message="No such command '\x1b[2J'."), said.append)
    assert "\x1b" not in said[0] and said[0].endswith("hint: ralph --help lists the options")
