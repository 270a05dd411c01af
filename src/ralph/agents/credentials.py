"""Where each agent CLI reads its credentials: the values ralph redacts from its output.

Any variable named like a credential is secret whatever the CLI (rules/text/redact.py); these are
the names each CLI is known to read (its footprint's `key_vars`), so a name that does not look
like one is not missed, and the configuration variables that carry keys inside a JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ralph.rules.text.redact import json_secrets, secret_values

# Variables whose value is a JSON configuration that may hold keys (opencode's provider
# options: {"provider": {"x": {"options": {"apiKey": "..."}}}}).
CONFIG_VARS = ("OPENCODE_CONFIG_CONTENT",)


def agent_secrets(
    env: Mapping[str, str], argv: Sequence[str], names: Sequence[str] = ()
) -> frozenset[str]:
    """The secret values an agent runs with: in its environment (`names`: the CLI's key
    variables, its footprint's and those its configuration names) and on its command line."""
    found = set(secret_values(env, names, argv))
    for name in CONFIG_VARS:
        if name in env:
            found |= json_secrets(env[name])
    return frozenset(found)
