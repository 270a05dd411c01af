"""agents/replay.py: a history log made readable again by the adapter of the agent its header
names; ralph's own lines kept as they are, an unknown agent's output as it is."""

from __future__ import annotations

import json

from ralph.agents.replay import agent_of, readable

HEADER = "# ralph rotation 3 [REVIEW] specs/a.spec.md agent=claude started=2026-11-28T09:00:00"
SAID = {"type": "assistant", "message": {"content": [{"type": "text", "text": "all green"}]}}


def test_the_header_names_the_agent() -> None:
    assert agent_of([HEADER, "x"]) == "claude"
    assert agent_of(["x", HEADER]) is None  # the header is the first line, or none
    assert agent_of([]) is None


def test_a_known_agents_output_is_rendered_around_ralphs_lines() -> None:
    lines = [HEADER, json.dumps(SAID), "# ended: exit 0 after 3 s"]
    shown = readable("claude", lines)
    assert shown[0] == HEADER and shown[-1] == "# ended: exit 0 after 3 s"
    assert any("all green" in line for line in shown) and json.dumps(SAID) not in shown


def test_a_pool_members_name_is_its_clis() -> None:
    shown = readable("Claude:opus#2", [json.dumps(SAID)])
    assert any("all green" in line for line in shown) and json.dumps(SAID) not in shown


def test_an_unknown_agents_output_is_shown_as_it_is() -> None:
    lines = [HEADER, json.dumps(SAID)]
    assert readable("my-own-agent", lines) == lines
    assert readable(None, lines) == lines
