"""agents/credentials.py: the values each agent CLI reads its credentials from, found to redact."""

from __future__ import annotations

from ralph.agents.claude import ClaudeAgent
from ralph.agents.credentials import agent_secrets
from ralph.agents.cursor import CursorAgent
from ralph.rules.text.redact import (
    json_secrets,
)


def test_each_cli_credentials_and_opencode_config_keys() -> None:
    env = {
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-token-value",
        "OPENCODE_CONFIG_CONTENT": '{"provider": {"m": {"options": {"apiKey": "inline-key-123"}}}}',
    }
    # Each CLI's credential variables are secret for it.
    claude, cursor = ClaudeAgent().key_vars(), CursorAgent().key_vars()  # their footprints'
    assert agent_secrets({"CLAUDE_CODE_OAUTH_TOKEN": "x" * 9}, (), claude) == {"x" * 9}
    assert agent_secrets({"ANTHROPIC_API_KEY": "y" * 9}, (), cursor) == {"y" * 9}
    assert agent_secrets(env, ()) == {"oauth-token-value", "inline-key-123"}
    assert json_secrets("not json") == frozenset()
