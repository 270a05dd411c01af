"""uv's settings for ralph's build of the checks' environment: never the tree's or a folder's
above it; the tree's `uv.toml` when a person accepted it, else the person's own as the run
began (their `uv.toml`: index, find-links, cache), else none (`--no-config`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from ralph.errors import RalphError
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.disk.reader import read_text
from ralph.store.environments.declared import MAX_DECLARING, Declared
from ralph.store.environments.installer import INPUT

# the person's own uv settings as the run began: in the store, never under envs/, which every
# check may read (they may hold an index's credentials)
PERSON_UV = "person-uv.toml"


def person_uv(env: Mapping[str, str]) -> str | None:
    """The person's own uv settings (their `uv.toml`) now; None when they have none."""
    for path in _person_configs(env):
        try:
            with path.open("rb") as f:
                data = f.read(MAX_DECLARING + 1)
        except OSError:
            continue
        return data.decode("utf-8", errors="replace") if len(data) <= MAX_DECLARING else None
    return None


def record_person_uv(project: Path, env: Mapping[str, str]) -> None:
    """When the run starts: the person's own uv settings, kept for the builds of this run."""
    kept = store_dir(project) / PERSON_UV
    kept.unlink(missing_ok=True)
    text = person_uv(env)
    if text is not None:
        ensure_store(project)
        kept.write_text(text)


def kept_person_uv(project: Path) -> str | None:
    """The person's uv settings as this run began."""
    try:
        return (store_dir(project) / PERSON_UV).read_text(errors="replace")
    except OSError:
        return None


def _person_configs(env: Mapping[str, str]) -> list[Path]:
    if env.get("UV_CONFIG_FILE"):
        return [Path(env["UV_CONFIG_FILE"])]
    if env.get("UV_NO_CONFIG"):
        return []
    home = Path(env.get("HOME") or Path.home())
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return [config / "uv" / "uv.toml", Path("/etc/xdg/uv/uv.toml"), Path("/etc/uv/uv.toml")]


def uv_settings(
    tree: Path, declared: Declared, target: Path, env: Mapping[str, str], person: str | None
) -> tuple[list[str], Path] | str:
    """uv's settings for a build: the tree's `uv.toml` when a person accepted it, else the
    person's own (`person`: as the run began), else none (`--no-config`: nothing above the build is
    read); and the cache those settings name (the person's), or why not."""
    tree_uv = any(s.file == "uv.toml" for s in declared.declaration.sources)
    config: list[str] = ["--no-config"]
    text: str | None = None
    if tree_uv:  # accepted, or the build would not be here (_held)
        try:
            text = read_text(tree / "uv.toml", limit=MAX_DECLARING, root=tree)
        except (OSError, RalphError) as exc:
            return f"uv.toml: {str(exc).splitlines()[0]}"
    else:
        text = person
    if text is not None:
        copy = target / INPUT / "uv.toml"
        copy.write_text(text)
        config = ["--config-file", str(copy)]
    cache = _cache(text, env)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make uv's cache {cache}: {exc.strerror or exc}"
    return config, cache


def _cache(config: str | None, env: Mapping[str, str]) -> Path:
    """The cache the person's uv uses: UV_CACHE_DIR, their settings' `cache-dir`, uv's
    default."""
    if env.get("UV_CACHE_DIR"):
        return Path(env["UV_CACHE_DIR"]).expanduser()
    if config is not None:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # no TOML reader in the standard library before 3.11
            import tomli as tomllib
        try:
            named = tomllib.loads(config).get("cache-dir")
        except tomllib.TOMLDecodeError:
            named = None
        if isinstance(named, str):
            return Path(named).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "uv"
