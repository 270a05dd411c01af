"""commands/pool.py: the agents of a run, each with its own model and limits, resolved by the one
precedence rule of the run's settings (rules/environment/setting.py): the command line, then the
saved run,
then this agent's own entry in ralph.yaml, then the `agent:` block, then the default. Nothing
runs: the agents are real commands (this Python), only looked up."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ralph.agents.member import Member
from ralph.commands.pool import build_policy, build_pool
from ralph.commands.runoptions import kept_settings, save_run_options
from ralph.run.settings import resolve
from ralph.store.person.config import AgentConfig, RalphConfig, parse_config

PY = sys.executable
ENTRY = f"agents:\n  - {{name: one, command: ['{PY}'], timeout: 5.0, model: m-one}}\n"


def pool(root: Path, yaml: str, **kept: Any) -> tuple[Member, ...]:
    return build_pool(root, kept, parse_config(yaml) if yaml else RalphConfig())


def limits(members: tuple[Member, ...]) -> list[tuple[float | None, str | None]]:
    return [(m.timeout, m.agent.model) for m in members]


# --------------------------------------------------------------------------- the levels


def test_the_command_line_wins_over_an_agents_own_entry(tmp_path: Path) -> None:
    given = pool(tmp_path, ENTRY, timeout=7.0, model="m-given")
    assert limits(given) == [(7.0, "m-given")]
    assert limits(pool(tmp_path, ENTRY)) == [(5.0, "m-one")]  # the control


def test_an_agents_own_entry_wins_over_the_agent_block() -> None:
    # ralph.yaml has one or the other (agents: or agent:); the rule still orders them
    block = RalphConfig(agent=AgentConfig(timeout=9.0, idle_timeout=30.0))
    own = AgentConfig(name="one", command=[PY], timeout=5.0)
    assert resolve({}, block, own).timeout == 5.0
    assert resolve({}, block, own).idle_timeout == 30.0  # what the entry leaves: the block's
    assert resolve({}, block).timeout == 9.0  # the control: no entry of its own


def test_the_agent_block_gives_its_limits_to_agents_without_an_entry(tmp_path: Path) -> None:
    yaml = "agent: {timeout: 9.0, model: m-block}\n"
    assert limits(pool(tmp_path, yaml, agent=(f"cmd:{PY}",))) == [(9.0, None)]
    two = pool(tmp_path, ENTRY, agent=("one", f"cmd:{PY}"))
    assert limits(two) == [(5.0, "m-one"), (3600.0, None)]  # the default


def test_an_entry_without_a_limit_takes_the_default_and_null_is_none(tmp_path: Path) -> None:
    plain = f"agents:\n  - {{name: one, command: ['{PY}']}}\n"
    assert limits(pool(tmp_path, plain)) == [(3600.0, None)]
    unlimited = f"agents:\n  - {{name: one, command: ['{PY}'], timeout: null}}\n"
    assert limits(pool(tmp_path, unlimited)) == [(None, None)]
    assert limits(pool(tmp_path, unlimited, timeout=4.0)) == [(4.0, None)]


def test_the_saved_run_wins_over_ralph_yaml_and_the_command_line_over_both(
    tmp_path: Path,
) -> None:
    save_run_options(tmp_path, {"timeout": 7.0, "idle_timeout": 8.0})
    kept = kept_settings(tmp_path, {}, continue_=True)
    members = build_pool(tmp_path, kept, parse_config(ENTRY))
    assert [(m.timeout, m.idle_timeout) for m in members] == [(7.0, 8.0)]
    again = kept_settings(tmp_path, {"timeout": 2.0}, continue_=True)
    members = build_pool(tmp_path, again, parse_config(ENTRY))
    assert [(m.timeout, m.idle_timeout) for m in members] == [(2.0, 8.0)]


def test_a_model_given_overrides_the_entrys_models_by_mode_too(tmp_path: Path) -> None:
    yaml = f"agents:\n  - {{name: one, command: ['{PY}'], models: {{review: m-review}}}}\n"
    (agent,) = (m.agent for m in pool(tmp_path, yaml))
    assert (agent.model_for("REVIEW"), agent.model_for("IMPLEMENT")) == ("m-review", None)
    (given,) = (m.agent for m in pool(tmp_path, yaml, model="m-given"))
    assert (given.model_for("REVIEW"), given.model_for("IMPLEMENT")) == ("m-given", "m-given")


# --------------------------------------------------------------------------- the pool


def test_names_are_made_unique_in_the_order_given(tmp_path: Path) -> None:
    names = [m.name for m in pool(tmp_path, "", agent=(f"cmd:{PY}", "cmd:sh", f"cmd:{PY}"))]
    assert names[2] == f"{names[0]}#2" and len(set(names)) == 3


def test_the_policy_takes_the_rotation_and_the_wait_from_the_settings() -> None:
    config = parse_config("pool: {rotation: fallback, max_failures: 2}\n")
    policy = build_policy(resolve({"wait_for_reset": True}, config), config)
    assert (policy.rotation, policy.wait_for_reset, policy.max_failures) == ("fallback", True, 2)
    given = build_policy(resolve({"rotation": "round-robin"}, config), config)
    assert given.rotation == "round-robin"


def test_every_key_of_ralph_yaml_s_pool_reaches_the_policy_by_its_name() -> None:
    """build_policy copies no key by hand: each `pool:` key the policy shares is taken as
    given (control: the defaults stay where nothing is given)."""
    yaml = (
        "pool: {fresh_eyes: false, backoff: 60.0, max_failures: 7, max_wait: 5.0,"
        " short_backoff: 2.0, short_retries: 1}\nlimits: {pause_at: 80.0}\n"
    )
    config = parse_config(yaml)
    policy = build_policy(resolve({}, config), config)
    assert (policy.fresh_eyes, policy.backoff, policy.max_failures, policy.max_wait) == (
        False,
        60.0,
        7,
        5.0,
    )
    assert (policy.short_backoff, policy.short_retries, policy.pause_at) == (2.0, 1, 80.0)
    default = build_policy(resolve({}, RalphConfig()), RalphConfig())
    assert (default.backoff, default.max_failures, default.pause_at) == (900.0, 3, None)


@pytest.mark.parametrize("wanted", ["missing-agent-xyz", "cmd:/no/such/program"])
def test_an_agent_that_does_not_exist_is_an_error_before_anything_runs(
    tmp_path: Path, wanted: str
) -> None:
    from ralph.errors import RalphError

    with pytest.raises(RalphError):
        pool(tmp_path, "", agent=(wanted,))
