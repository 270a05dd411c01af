"""npm's settings for ralph's build of the checks' `node_modules`: the person's, as the run
began, never the tree's (an `.npmrc` in the tree is a source a person accepts) and never a
folder's above it.

When a run starts in a project with a `package.json`, ralph keeps a copy of the person's own
npm settings (`npm_config_userconfig`, else `~/.npmrc`) and the registry they name: their
`npm_config_registry`, else the `registry=` line of their settings, else what npm itself says
(`npm config get registry`, run once, in ralph's store, with their settings only). A lockfile
entry from anywhere else is a source (rules/environment/nodedeclarations.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from ralph.process.capture import run_captured
from ralph.rules.environment.nodedeclarations import PACKAGE_JSON
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.environments.declared import MAX_DECLARING

NPM = "npm"  # the store's folder of npm's settings and builds, never shown to a check
PERSON_NPMRC = "person-npmrc"  # the person's own npm settings as the run began
REGISTRY = "registry.txt"  # the registry they name
ASK_TIMEOUT = 60.0  # seconds for npm to say its registry (it reads files only)


def npm_dir(project: Path) -> Path:
    """The store's folder for npm: outside `envs/`, which the checks' sandbox shows, since the
    person's settings may hold their registry's token."""
    return store_dir(project) / NPM


def record_person_npm(project: Path, env: Mapping[str, str]) -> None:
    """When the run starts: the person's npm settings and registry, kept for this run's
    builds and for what counts as a source; none when the project has no package.json."""
    folder = npm_dir(project)
    (folder / PERSON_NPMRC).unlink(missing_ok=True)
    (folder / REGISTRY).unlink(missing_ok=True)
    if not (project / PACKAGE_JSON).is_file():
        return
    ensure_store(project)
    folder.mkdir(mode=0o700, exist_ok=True)
    text = _person_npmrc(env)
    if text is not None:
        kept = folder / PERSON_NPMRC
        kept.touch(mode=0o600)  # it may hold the person's tokens
        kept.write_text(text)
    named = _setting(env, "registry") or _line(text or "", "registry")
    found = named or _ask(folder, env)
    if found:
        (folder / REGISTRY).write_text(found)


def registry(project: Path) -> str:
    """The person's registry as the run began ("" when not known: no entry is from it)."""
    try:
        return (npm_dir(project) / REGISTRY).read_text().strip()
    except OSError:
        return ""


def person_npmrc(project: Path) -> str | None:
    """The person's npm settings as the run began (None: they had none)."""
    try:
        return (npm_dir(project) / PERSON_NPMRC).read_text()
    except OSError:
        return None


def npm_cache(env: Mapping[str, str], npmrc: str | None) -> Path:
    """The cache the person's npm uses: npm_config_cache, their settings' `cache=`, ~/.npm."""
    named = _setting(env, "cache") or _line(npmrc or "", "cache")
    home = Path(env.get("HOME") or Path.home())
    if named:
        return Path(named.replace("${HOME}", str(home))).expanduser()
    return home / ".npm"


def npm_program(env: Mapping[str, str]) -> str | None:
    return shutil.which("npm", path=env.get("PATH"))


def _setting(env: Mapping[str, str], key: str) -> str:
    return env.get(f"npm_config_{key}") or env.get(f"NPM_CONFIG_{key.upper()}") or ""


def _person_npmrc(env: Mapping[str, str]) -> str | None:
    named = _setting(env, "userconfig")
    path = Path(named).expanduser() if named else Path(env.get("HOME") or Path.home()) / ".npmrc"
    try:
        with path.open("rb") as f:
            data = f.read(MAX_DECLARING + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace") if len(data) <= MAX_DECLARING else None


def _line(text: str, key: str) -> str:
    """The value of `key = value` in an npmrc's text ("" when it has none)."""
    for raw in text.splitlines():
        name, sep, value = raw.partition("=")
        if sep and name.strip() == key:
            return value.strip().strip("\"'")
    return ""


def _ask(folder: Path, env: Mapping[str, str]) -> str:
    """npm's own answer, with the person's settings only: in a folder of ralph's store that
    holds an empty package.json, so npm looks for a project's settings nowhere above it."""
    npm = npm_program(env)
    if npm is None:
        return ""
    here = folder / "ask"
    here.mkdir(mode=0o700, exist_ok=True)
    (here / PACKAGE_JSON).write_text("{}\n")
    kept = folder / PERSON_NPMRC
    config = str(kept) if kept.is_file() else os.devnull
    argv = [npm, "config", "get", "registry", "--userconfig", config, "--no-update-notifier"]
    try:
        done = run_captured(argv, here, env, timeout=ASK_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    answer = done.stdout.decode(errors="replace").strip()
    return answer if done.returncode == 0 and "://" in answer else ""
