"""--help reads like ralph, and a refused command line is one `error:` line with a hint:
readable placeholders, the defaults, whole summaries, no Typer or Click wording, and "did you
mean" for mistyped commands, options, ralph.yaml keys, front-matter keys and agent names."""

from __future__ import annotations

import re

import pytest

from tests.conftest import Project

TYPER_WORDS = re.compile(r"<str>|<int|<float|<path>|\[x[<>]=|x>=|range\]|\[default: \.\]")


CLICK_ERRORS = re.compile(
    r"Invalid value|No such|Try 'ralph|Usage:|Extra inputs|not a valid int|not a valid float"
)


def help_of(project: Project, *command: str) -> str:
    res = project.run(*command, "--help")
    assert res.exit_code == 0, res
    return res.stdout


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("run", "-n", "abc"), "error: --max-iterations: 'abc' is not a whole number"),
        (("run", "-n", "0"), "error: --max-iterations: must be at least 1, got 0"),
        (("run", "--timeout", "x"), "error: --timeout: 'x' is not a number"),
        (("run", "--bogus"), "error: unknown option --bogus"),
        (("stauts",), "error: unknown command 'stauts' (did you mean 'status'?)"),
        (("run", "--log-format", "xml"), "error: --log-format: 'xml' is not one of"),
        (("status", "--interval", "0"), "error: --interval: must be at least 0.1, got 0.0"),
    ],
)
def test_a_refused_command_line_is_one_line_in_ralphs_words(
    project: Project, args: tuple[str, ...], line: str
) -> None:
    res = project.run(*args)
    assert res.exit_code == 2, res
    lines = res.stderr.splitlines()
    assert lines[0].startswith(line), res.stderr
    assert len(lines) == 2 and lines[1].startswith("hint: ralph") and "--help" in lines[1]
    assert not CLICK_ERRORS.search(res.stderr), res.stderr


@pytest.mark.parametrize(
    ("files", "args", "said"),
    [
        ({"ralph.yaml": "max_iteration: 3\n"}, (), "max_iteration: unknown key (did you mean "),
        ({"ralph.yaml": "agent:\n  timout: 3\n"}, (), "agent.timout: unknown key (did you mean "),
        ({}, ("--agent", "claud"), "unknown agent: claud (did you mean 'claude'?)"),
        (
            {"PROMPT.md": "---\ntest_comand: x\n---\n# g\n"},
            (),
            "test_comand: unknown key (did you mean 'test_command'?)",
        ),
    ],
)
def test_did_you_mean_for_keys_and_agent_names(
    project: Project, files: dict[str, str], args: tuple[str, ...], said: str
) -> None:
    project.write({"PROMPT.md": "# g\n", **files})
    res = project.run("run", *(args or ("--agent", "demo")), "-n", "1")
    assert res.exit_code in (1, 2), res
    assert said in res.stderr, res.stderr
