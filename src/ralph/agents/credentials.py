"""Where each agent CLI reads its credentials: the values ralph redacts from its output.

Any variable named like a credential is secret whatever the CLI (rules/redact.py); these are
the names each CLI is known to read, kept here so a name that does not look like one is not
missed, and the configuration variables that carry keys inside a JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ralph.rules.redact import json_secrets, secret_values

CREDENTIAL_VARS: dict[str, tuple[str, ...]] = {
    "claude": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "codex": ("OPENAI_API_KEY", "CODEX_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "cursor": ("CURSOR_API_KEY",),
    "opencode": ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"),
    "pi": ("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY"),
    "aider": ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"),
}
# Variables whose value is a JSON configuration that may hold keys (opencode's provider
# options: {"provider": {"x": {"options": {"apiKey": "..."}}}}).
CONFIG_VARS = ("OPENCODE_CONFIG_CONTENT",)


def agent_secrets(key: str, env: Mapping[str, str], argv: Sequence[str]) -> frozenset[str]:
    """The secret values an agent runs with: in its environment and on its command line."""
    found = set(secret_values(env, CREDENTIAL_VARS.get(key, ()), argv))
    for name in CONFIG_VARS:
        if name in env:
            found |= json_secrets(env[name])
    return frozenset(found)
