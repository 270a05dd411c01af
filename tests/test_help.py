"""--help reads like ralph, and a refused command line is one `error:` line with a hint:
readable placeholders, the defaults, whole summaries, no Typer or Click wording, and "did you
mean" for mistyped commands, options, ralph.yaml keys, front-matter keys and agent names."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Project

TYPER_WORDS = re.compile(r"<str>|<int|<float|<path>|\[x[<>]=|x>=|range\]|\[default: \.\]")


def help_of(project: Project, *command: str) -> str:
    res = project.run(*command, "--help")
    assert res.exit_code == 0, res
    return res.stdout


def test_run_help_has_readable_placeholders_choices_and_defaults(project: Project) -> None:
    text = " ".join(help_of(project, "run").split())  # wrapping aside
    assert not TYPER_WORDS.search(text), text
    for shown in (
        "--agent NAME",
        "--agent-command CMD",
        "--report KIND=PATH",
        "--output live|no-color|plain|json",
        "--rotation round-robin|fallback",
        "-n, --max-iterations N",
        "--timeout SECONDS",
        "--max-cost USD",
        "--junit FILE",
        "--spec PATH",
        "-C, --project DIR",
        "--on-escalation abort|accept|continue",
        "default 20 (ralph.yaml: max_iterations)",
        "default 3600 (ralph.yaml: an agent's own timeout, else agent.timeout)",
    ):
        assert shown in text, shown


@pytest.mark.parametrize("command", ["status", "history", "reset", "inspect", "agents"])
def test_other_commands_help_has_no_typer_words(project: Project, command: str) -> None:
    assert not TYPER_WORDS.search(help_of(project, command))


def test_top_level_summaries_are_whole_sentences(project: Project) -> None:
    text = help_of(project)
    commands = text.split("Commands:", 1)[1]
    assert "..." not in commands
    summaries = " ".join(commands.split())
    assert "until every spec is at 3/3." in summaries
    assert "and ignore .ralph/ in git." in summaries
