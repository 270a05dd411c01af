"""What each agent CLI touches outside the project: the hosts it calls, the folders that hold its
login and caches, and where its credentials live. The sandbox lets a CLI reach exactly these;
`ralph doctor` reads the credential places (never calling the API) to say whether it is logged in.
Each CLI's module states its own, on its class (`BuiltinAgent.footprint`): what the plugin
registers through `ralph_agents` is all there is to know of it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit


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
        """Every variable of the CLI's own: a sandbox passes these on (process/allowlist.py)."""
        return (*self.key_vars, *self.base_url_vars, *self.home_vars, *self.other_vars)


# hosts more than one CLI calls
ANTHROPIC = ("api.anthropic.com",)
OPENAI = ("api.openai.com",)
GOOGLE = ("generativelanguage.googleapis.com", "oauth2.googleapis.com")


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
