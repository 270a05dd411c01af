"""The agents of a run: the pool's policy and its members, from the options and ralph.yaml."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ralph.run.settings import COMMAND, resolve

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from ralph.agents.member import Member
    from ralph.rules.agents.pool import PoolPolicy
    from ralph.run.settings import RunSettings
    from ralph.store.person.config import AgentConfig, RalphConfig


def build_policy(settings: RunSettings, config: RalphConfig) -> PoolPolicy:
    """ralph.yaml's `pool:` by the names the policy shares with it (a key added to both
    reaches the policy as it is), then what the run's settings resolved (flag over
    ralph.yaml: `rotation`, `wait_for_reset`) and `limits.pause_at`."""
    from dataclasses import fields

    from ralph.rules.agents.pool import PoolPolicy

    shared = {f.name for f in fields(PoolPolicy)} & set(type(config.pool).model_fields)
    given = {name: getattr(config.pool, name) for name in shared}
    resolved = {"rotation": settings.rotation, "wait_for_reset": settings.wait_for_reset}
    return PoolPolicy(**{**given, **resolved, "pause_at": config.limits.pause_at})


def build_pool(root: Path, kept: Mapping[str, Any], config: RalphConfig) -> tuple[Member, ...]:
    """The agents of this run, each with its own limits; every executable checked up front.

    Agents named on the command line replace those of ralph.yaml, in the order given. `--agent
    NAME` picks the ralph.yaml entry of that name when there is one (so its command, limits and
    environment come along); any other agent takes the limits and environment of the `agent:`
    block. Names ralph does not know name the commands (`--agent mine --agent cmd:CMD`), in
    order, one name per command. Names are made unique (`python`, `python#2`) because benching,
    eviction and cost are kept per agent. Each agent's `--model`, `--timeout` and
    `--idle-timeout` are its settings (`resolve` with its entry): given or saved (`kept`), then
    its own entry's, then the `agent:` block's.
    """
    from ralph.agents.member import Member
    from ralph.agents.registry import make_agent, registry

    settings = resolve(kept, config)

    # (settings, name, command, whether the entry's model: and args: belong to this agent)
    chosen: list[tuple[AgentConfig, str | None, str | list[str] | None, bool]] = []
    if settings.agent:
        named = {m.name: m for m in config.members if m.name is not None}
        commands = [a for a in settings.agent if a.startswith(COMMAND)]
        unknown = [a for a in settings.agent if a not in commands + list(named) + list(registry())]
        labels = iter(unknown if len(unknown) <= len(commands) else [])
        for wanted in settings.agent:
            entry = named.get(wanted)
            if wanted in commands:
                given = wanted.removeprefix(COMMAND)
                chosen.append((config.agent, next(labels, None), given, False))
            elif entry is not None:
                chosen.append((entry, entry.name, entry.command, True))
            elif wanted not in unknown or len(unknown) > len(commands):
                chosen.append((config.agent, wanted, None, False))
    else:
        chosen = [(m, m.name, m.command, True) for m in config.members] or [
            (config.agent, None, None, True)
        ]

    members: list[Member] = []
    taken: set[str] = set()
    for entry, name, command, own in chosen:
        mine = resolve(kept, config, entry if own else None)
        agent = make_agent(name, command, entry.env, mine.model, entry.args if own else [])
        if own and "model" not in kept:  # a model given or saved overrides its models: too
            agent.models = {str(k): v for k, v in entry.models.items()}
        agent.resolve(root)  # a missing agent is an error before anything runs
        base, n = agent.name, 1
        while agent.name in taken:
            n += 1
            agent.name = f"{base}#{n}"
        taken.add(agent.name)
        members.append(
            Member(
                agent=agent,
                timeout=mine.timeout,
                idle_timeout=mine.idle_timeout,
                kill_grace=entry.kill_grace,
            )
        )
    return tuple(members)
