"""The words of an invalid ralph.yaml: the file, the key (list indexes as `.0`, Pydantic's union
members left out) and Pydantic's message; the same formatter as the front matter's."""

from __future__ import annotations

import pytest

from ralph.errors import DOCS_URL, ConfigError
from ralph.store.person.config import parse_config

HINT = f"the keys ralph.yaml accepts: {DOCS_URL}reference/ralph-yaml.md"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agent: {command: 5}\n", "ralph.yaml: agent.command: Input should be a valid string"),
        (
            "agents: [{command: x}, {bogus: 1}]\n",
            "ralph.yaml: agents.1.bogus: unknown key",
        ),
        ("agent: {env: {A: 1}}\n", "ralph.yaml: agent.env.A: Input should be a valid string"),
        (
            "max_iterations: 0\n",
            "ralph.yaml: max_iterations: Input should be greater than or equal to 1",
        ),
        (
            "agent: 5\n",
            "ralph.yaml: agent: Input should be a valid dictionary or instance of AgentConfig",
        ),
    ],
)
def test_invalid_value_names_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert (caught.value.message, caught.value.hint) == (message, HINT)


def test_invalid_yaml_names_the_line_it_opened_on() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config("max_iterations: 3\nagent: {command: [x\n")
    assert caught.value.message.startswith("ralph.yaml: line 2: invalid YAML (")
    assert caught.value.hint == "fix the YAML syntax"


def test_a_yaml_error_names_the_line_of_the_problem() -> None:
    # a mis-indented line deep in the file: that line, not where its block started
    lines = ["agent:", "  command: echo", *(f"k{i}: {i}" for i in range(12)), "checks:"]
    lines += ["  - name: a", "   method: external"]
    assert lines[17 - 1] == "   method: external"
    with pytest.raises(ConfigError) as caught:
        parse_config("\n".join(lines) + "\n")
    assert caught.value.message.startswith("ralph.yaml: line 17: invalid YAML (")


@pytest.mark.parametrize("nested", ["[" * 5000 + "]" * 5000, "{a: " * 3000 + "1" + "}" * 3000])
def test_deeply_nested_yaml_is_one_line(nested: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f"max_iterations: 3\nx: {nested}\n")
    assert caught.value.message == (
        "ralph.yaml: invalid YAML (nested too deeply: more levels than ralph reads)"
    )
    assert caught.value.hint == "fix the YAML syntax"
