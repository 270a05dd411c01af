"""What each agent CLI touches outside the project: the hosts it calls, the folders that hold its
login and caches, and where its credentials live. The sandbox lets a CLI reach exactly these;
`ralph doctor` reads the credential places (never calling the API) to say whether it is logged in.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING


@dataclass(frozen=True)
class Footprint:
    hosts: tuple[str, ...]  # API and login hosts
    folders: tuple[str, ...]  # relative to HOME: config, login, caches (created when missing)
    files: tuple[str, ...] = ()  # relative to HOME: single files (writable when present)
    home_vars: tuple[str, ...] = ()  # variables that move the config folder elsewhere
    base_url_vars: tuple[str, ...] = ()  # variables naming another endpoint (its host is allowed)
    # Where the CLI reads its keys: any one set means credentials given (doctor); every
    # value is a secret kept out of ralph's records (agents/credentials.py).
    key_vars: tuple[str, ...] = ()
    credential_files: tuple[str, ...] = ()  # relative to HOME: any one present: logged in
    # False: the CLI may keep its login where ralph cannot look (a keychain, a provider's own
    # file), so finding no credentials is a warning, not an error.
    certain: bool = True
    login_hint: str = ""
    # More variables the CLI reads (a region, a provider switch): passed into a sandbox too.
    other_vars: tuple[str, ...] = ()
    # What the CLI makes in the project (rules/agents/agentfiles.py): never a reason to refuse a
    # DONE.
    scaffolding: tuple[str, ...] = ()

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable of the CLI's own: a sandbox passes these on (process/sandbox.py)."""
        return (*self.key_vars, *self.base_url_vars, *self.home_vars, *self.other_vars)


_ANTHROPIC = ("api.anthropic.com",)
_OPENAI = ("api.openai.com",)
_GOOGLE = ("generativelanguage.googleapis.com", "oauth2.googleapis.com")

FOOTPRINTS: dict[str, Footprint] = {
    "claude": Footprint(
        scaffolding=AGENT_SCAFFOLDING["claude"],
        hosts=(*_ANTHROPIC, "console.anthropic.com", "claude.ai", "platform.claude.com"),
        folders=(".claude", ".cache/claude-cli-nodejs", ".local/state/claude"),
        files=(".claude.json", ".claude.json.backup"),
        home_vars=("CLAUDE_CONFIG_DIR",),
        base_url_vars=("ANTHROPIC_BASE_URL",),
        key_vars=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
        credential_files=(".claude/.credentials.json",),
        certain=sys.platform != "darwin",  # on macOS the login is in the keychain
        login_hint="run `claude` once and /login, or set ANTHROPIC_API_KEY",
    ),
    "codex": Footprint(
        scaffolding=AGENT_SCAFFOLDING["codex"],
        hosts=(*_OPENAI, "chatgpt.com", "auth.openai.com"),
        folders=(".codex",),
        home_vars=("CODEX_HOME",),
        base_url_vars=("OPENAI_BASE_URL",),
        key_vars=("CODEX_API_KEY", "OPENAI_API_KEY"),
        credential_files=(".codex/auth.json",),
        login_hint="run `codex login`, or set OPENAI_API_KEY",
    ),
    "gemini": Footprint(
        scaffolding=AGENT_SCAFFOLDING["gemini"],
        hosts=(*_GOOGLE, "cloudcode-pa.googleapis.com"),
        folders=(".gemini",),
        base_url_vars=("GOOGLE_GEMINI_BASE_URL",),
        key_vars=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
        credential_files=(".gemini/oauth_creds.json",),
        login_hint="run `gemini` once and log in, or set GEMINI_API_KEY",
    ),
    "cursor": Footprint(
        scaffolding=AGENT_SCAFFOLDING["cursor"],
        hosts=("cursor.com", "*.cursor.com", "*.cursor.sh"),
        folders=(".cursor", ".config/cursor", ".local/share/cursor-agent"),
        key_vars=("CURSOR_API_KEY",),
        certain=False,
        login_hint="run `cursor-agent login`, or set CURSOR_API_KEY",
    ),
    "opencode": Footprint(
        scaffolding=AGENT_SCAFFOLDING["opencode"],
        hosts=(*_ANTHROPIC, *_OPENAI, "opencode.ai", "models.dev"),
        folders=(
            ".config/opencode",
            ".local/share/opencode",
            ".cache/opencode",
            ".local/state/opencode",
        ),
        key_vars=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
        credential_files=(".local/share/opencode/auth.json",),
        certain=False,  # providers configured in opencode.json carry their own keys
        login_hint="run `opencode auth login`, or set the provider's API key",
    ),
    "pi": Footprint(
        scaffolding=AGENT_SCAFFOLDING["pi"],
        hosts=(*_ANTHROPIC, *_OPENAI, *_GOOGLE),
        folders=(".pi",),
        home_vars=("PI_CODING_AGENT_DIR",),
        key_vars=("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY"),
        credential_files=(".pi/agent/auth.json",),
        certain=False,  # ~/.pi/agent/models.json may carry a provider's key
        login_hint="run `pi` and /login, or set ANTHROPIC_API_KEY (or another provider's key)",
    ),
    "aider": Footprint(
        scaffolding=AGENT_SCAFFOLDING["aider"],
        hosts=(*_ANTHROPIC, *_OPENAI),
        folders=(".aider", ".cache/aider"),
        key_vars=(
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENROUTER_API_KEY",
            "AIDER_ANTHROPIC_API_KEY",
        ),
        certain=False,  # keys may sit in .env or .aider.conf.yml
        login_hint="set ANTHROPIC_API_KEY or OPENAI_API_KEY (or put the key in .aider.conf.yml)",
    ),
}


def endpoint_hosts(footprint: Footprint, env: Mapping[str, str]) -> tuple[str, ...]:
    """host:port of every other endpoint the CLI's variables name (a gateway, a local model)."""
    found: list[str] = []
    for name in footprint.base_url_vars:
        value = env.get(name, "")
        parts = urlsplit(value)
        if parts.hostname:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            found.append(f"{parts.hostname}:{port}")
    return tuple(found)


def config_paths(footprint: Footprint, home: Path, env: Mapping[str, str]) -> list[Path]:
    """The folders (and files) of the CLI's login and caches, where its variables put them."""
    paths = [home / folder for folder in footprint.folders]
    paths += [home / name for name in footprint.files]
    paths += [Path(env[name]) for name in footprint.home_vars if env.get(name)]
    return paths


def credentials(footprint: Footprint, home: Path, env: Mapping[str, str]) -> str | None:
    """Where the CLI's credentials were found (a variable's name or a file), or None."""
    for name in footprint.key_vars:
        if env.get(name):
            return name
    places = [home / name for name in footprint.credential_files]
    for var in footprint.home_vars:
        if env.get(var):  # CODEX_HOME/auth.json and the like
            places += [Path(env[var]) / Path(name).name for name in footprint.credential_files]
    for place in places:
        if place.is_file() and os.access(place, os.R_OK):
            return str(place)
    return None
