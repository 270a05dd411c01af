"""run/options.py: what `ralph run` passes to the loop, as one frozen value named for its agents.

Each fact is stated once: the run's options travel as the resolved settings themselves
(`opts.settings`), what only ralph.yaml says is read from the config itself (`opts.config`), and
no field of RunOptions repeats either. The run never reads a ralph.yaml key a setting declares
from the config: that would skip the flag and the saved run."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.process.request import OPEN
from ralph.rules.environment.setting import declared
from ralph.run.options import RunOptions
from ralph.run.settings import RunSettings, resolve
from ralph.store.person.config import RalphConfig, parse_config

SRC = Path(__file__).resolve().parents[2] / "src" / "ralph"


def run_options(root: Path, pool: tuple[Member, ...], yaml: str = "", **given: Any) -> RunOptions:
    """The options `ralph run` builds for these settings (by name, as given or saved: `parallel=2`,
    `spec=(...)`), this ralph.yaml and these other fields (`decide=...`), resolved by the one
    rule as the command resolves them."""
    names = {d.name for d in declared(RunSettings)}
    config = parse_config(yaml) if yaml else RalphConfig()
    kept = {"max_iterations": 20, **{k: v for k, v in given.items() if k in names}}
    more = {k: v for k, v in given.items() if k not in names}
    return RunOptions(root=root, pool=pool, settings=resolve(kept, config), config=config, **more)


def options(*names: str, yaml: str = "", **given: Any) -> RunOptions:
    pool = tuple(Member(CommandAgent(name, [name])) for name in names)
    return run_options(Path("proj"), pool, yaml, **given)


def test_a_run_is_named_for_its_pool() -> None:
    assert options("claude").label == "claude"
    assert options("claude", "codex").label == "claude, codex"


def test_the_defaults_and_the_value_is_frozen() -> None:
    run = options("claude")
    assert (run.settings.parallel, run.config.final_verification, run.settings.spec) == (
        1,
        True,
        (),
    )
    assert run.launcher.confined == OPEN and run.secrets == frozenset() and run.test_globs is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.settings = run.settings  # type: ignore[misc]


def test_the_run_reads_its_options_as_resolved_and_the_rest_from_ralph_yaml() -> None:
    run = options("claude", yaml="max_cost: 5.0\nbreaker: {threshold: 2}\ntests: [t/*.py]\n")
    assert run.settings.max_cost == 5.0 and run.config.breaker.threshold == 2
    assert run.test_globs == ("t/*.py",)
    assert options("claude", yaml="max_cost: 5.0\n", max_cost=1.5).settings.max_cost == 1.5


# --------------------------------------------------------------------------- each fact once


def test_no_field_of_run_options_repeats_a_setting_or_a_ralph_yaml_key() -> None:
    """A run option is one field of RunSettings: RunOptions carries it, never a copy of it, nor
    a copy of a ralph.yaml value (a second default to drift)."""
    mine = {f.name for f in dataclasses.fields(RunOptions)}
    assert mine & {d.name for d in declared(RunSettings)} == set()
    # `pool`: the agents built from ralph.yaml's agents: (or the command line), beside its pool:
    assert mine & set(RalphConfig.model_fields) == {"pool"}
    assert {"settings", "config"} <= mine  # the control: the check sees the fields


def setting_keys() -> set[str]:
    """The ralph.yaml keys a setting declares: `max_cost`, `pool.rotation`, `agent.timeout`."""
    return {d.setting.yaml for d in declared(RunSettings) if d.setting.yaml is not None}


def reads_of_settings_keys(text: str) -> list[str]:
    """Where `text` reads a key a setting declares from ralph.yaml's config (`config.max_cost`),
    not from the settings that resolved it (`settings.max_cost`)."""
    keys = "|".join(re.escape(k) for k in sorted(setting_keys(), key=len, reverse=True))
    return re.findall(rf"\bconfig\.(?:{keys})\b", text)


def test_the_run_reads_no_ralph_yaml_key_a_setting_declares() -> None:
    found = {
        str(path.relative_to(SRC)): hits
        for path in sorted((SRC / "run").glob("*.py"))
        if (hits := reads_of_settings_keys(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_read_check_sees_a_bypass() -> None:
    # the control: the attack the check above is for, and an honest read beside it
    assert reads_of_settings_keys("cap = opts.config.max_cost") == ["config.max_cost"]
    assert reads_of_settings_keys("x = run.opts.config.pool.rotation") == ["config.pool.rotation"]
    assert reads_of_settings_keys("cap = opts.settings.max_cost") == []
    assert reads_of_settings_keys("n = opts.config.breaker.threshold") == []
