"""agents/credentials.py: the values each agent CLI reads its credentials from, found to redact."""

from __future__ import annotations

from ralph.agents.credentials import agent_secrets
from ralph.rules.text.redact import (
    json_secrets,
)


def test_each_cli_credentials_and_opencode_config_keys() -> None:
    env = {
        "CLAUDE_CODE_OAUTH_TOKEN": "oauth-token-value",
        "OPENCODE_CONFIG_CONTENT": '{"provider": {"m": {"options": {"apiKey": "inline-key-123"}}}}',
    }
    # Each CLI's credential variables are secret for it.
    assert agent_secrets("claude", {"CLAUDE_CODE_OAUTH_TOKEN": "x" * 9}, ()) == {"x" * 9}
    assert agent_secrets("cursor", {"ANTHROPIC_API_KEY": "y" * 9}, ()) == {"y" * 9}
    assert agent_secrets("opencode", env, ()) == {"oauth-token-value", "inline-key-123"}
    assert json_secrets("not json") == frozenset()
