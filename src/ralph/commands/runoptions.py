"""The settings of one `ralph run` as the command line gives them, and as they are saved in
ralph's private store once the run has started (not in `.ralph/`, where an agent could rewrite
what the next `--continue` runs) and read back by `ralph run --continue`.

A value is checked by its setting's own rule (rules/environment/setting.py) wherever it comes from:
a bad
one on the command line is a usage error (exit 2), one in a hand-edited saved file is one clear
error (exit 1). Files saved by an older ralph (`junit`, `plain`, `agent_command`, ...) load
through the settings' aliases, as those spellings do on the command line.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph.errors import StateError, UsageError
from ralph.rules.environment.setting import Declared, checked, declared, layered, spoken
from ralph.run.settings import RunSettings

OPTIONS_FILE = "run-options.json"
# 1: by the command line's parameter names (junit, plain, agent_command, ...); 2: by setting
SCHEMA_VERSION = 2
_HINT = "ralph run --help lists the options"


def _settings() -> dict[str, Declared]:
    return {d.name: d for d in declared(RunSettings)}


def given_settings(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the command line gives (`options`: each spelling's value by its parameter's
    name, None or False when not given, a choice as an Enum), checked; report paths made
    absolute, so `--continue` from anywhere writes the same files. UsageError for a bad value
    or two settings that exclude each other."""
    by_name = _settings()
    raw = {
        k: getattr(v, "value", v)  # an Enum's value, read without importing the command line's
        for k, v in options.items()
        if v is not None and v is not False  # given: -n 0 too
    }
    given: dict[str, Any] = {}
    for name, value in spoken(RunSettings, raw).items():
        d = by_name[name]
        try:
            given[name] = checked(d, value)
        except ValueError as exc:
            raise UsageError(f"{d.setting.name}: {exc}", _HINT) from None
    groups: dict[str, list[str]] = {}
    for name in given:
        group = by_name[name].setting.group
        if group is not None:
            groups.setdefault(group, []).append(by_name[name].setting.name)
    for named in groups.values():
        if len(named) > 1:
            raise UsageError(f"{' and '.join(named)} contradict each other; give one", _HINT)
    if "report" in given:
        given["report"] = tuple(_absolute(item) for item in given["report"])
    return given


def _absolute(item: str) -> str:
    kind, _, path = item.partition("=")
    file = Path(path).expanduser()  # no shell expands the ~ of `junit=~/r.xml`
    if file.is_dir():
        raise UsageError(f"--report {item}: {path} is a folder, not a file", "name a file")
    return f"{kind}={file.absolute()}"


def kept_settings(root: Path, given: Mapping[str, Any], continue_: bool) -> dict[str, Any]:
    """The settings this run was given, and with `--continue` the saved run's for the rest:
    what the run saves for the next `--continue` (ralph.yaml's come after them)."""
    if not continue_:
        return dict(given)
    return layered(RunSettings, (given, saved_settings(root, given)))


def saved_settings(root: Path, given: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the last run started with, but those `given` again, checked; an error when
    there are none, or one is not valid (given again, it is not read)."""
    by_name = _settings()
    replaced = {by_name[name].setting.group for name in given} - {None}
    saved: dict[str, Any] = {}
    for name, value in spoken(RunSettings, load_run_options(root)).items():
        s = by_name[name].setting
        if name in given or s.group in replaced or not s.kept:
            continue
        try:
            saved[name] = checked(by_name[name], value)
        except ValueError as exc:
            raise StateError(
                f"the saved run options ({OPTIONS_FILE} in ralph's private store): option "
                f"{name}: {value!r} is not valid ({exc})",
                "give the option again with --continue (it replaces the saved one), or start "
                "afresh without --continue",
            ) from None
    return saved


def save_run_options(root: Path, kept: Mapping[str, Any]) -> None:
    from ralph.store.disk.files import write_json_atomic
    from ralph.store.disk.private import ensure_store

    by_name = _settings()
    options = {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in kept.items()
        if name in by_name and by_name[name].setting.kept
    }
    write_json_atomic(
        ensure_store(root) / OPTIONS_FILE,
        {"schema_version": SCHEMA_VERSION, "saved_at": time.time(), "options": options},
    )


def load_run_options(root: Path) -> dict[str, Any]:
    """The options the last run started with, as saved; an error when there are none."""
    from ralph.store.disk.files import load_json
    from ralph.store.disk.private import store_dir

    # Only the store's: `.ralph/run-options.json` (where an earlier ralph saved them) is the
    # agent's to write, and what --continue reads there it would run.
    path = store_dir(root) / OPTIONS_FILE
    data = load_json(path, f"the saved run options ({path})")
    if data is None:
        raise UsageError(
            f"nothing to continue: no saved run options for {root}",
            "start a run with ralph run (its options are saved then), or drop --continue",
        )
    if not isinstance(data, dict) or not isinstance(data.get("options"), dict):
        raise StateError(
            f"{path}: expected an object with 'options'",
            "delete the file and give the options again",
        )
    options: dict[str, Any] = data["options"]
    return options
