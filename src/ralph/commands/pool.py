"""The agents of a run: the pool's policy and its members, from the options and ralph.yaml."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ralph.agents.member import Member
    from ralph.commands.runoptions import RunRequest
    from ralph.rules.pool import PoolPolicy
    from ralph.store.config import AgentConfig, RalphConfig


def build_policy(req: RunRequest, config: RalphConfig) -> PoolPolicy:
    from ralph.rules.pool import ROTATIONS, PoolPolicy

    p = config.pool
    rotation = p.rotation
    if req.rotation is not None:
        rotation = next(r for r in ROTATIONS if r == req.rotation)  # the CLI checked it
    return PoolPolicy(
        rotation=rotation,
        fresh_eyes=p.fresh_eyes,
        backoff=p.backoff,
        max_failures=p.max_failures,
        max_wait=p.max_wait,
        short_backoff=p.short_backoff,
        short_retries=p.short_retries,
        wait_for_reset=req.wait_for_reset,
        pause_at=config.limits.pause_at,
    )


def build_pool(req: RunRequest, config: RalphConfig) -> tuple[Member, ...]:
    """The agents of this run, each with its own limits; every executable checked up front.

    Agents named on the command line replace those of ralph.yaml: built-in agents first, in
    the order given, then custom commands. `--agent NAME` picks the ralph.yaml entry of that
    name when there is one (so its command, limits and environment come along); any other
    agent takes the limits and environment of the `agent:` block. Names are made unique
    (`python`, `python#2`) because benching, eviction and cost are kept per agent.
    """
    from ralph.agents.member import Member
    from ralph.agents.registry import REGISTRY, make_agent

    # (settings, name, command, whether the entry's model: and args: belong to this agent)
    chosen: list[tuple[AgentConfig, str | None, str | list[str] | None, bool]] = []
    names, commands = _listed(req.agent), _listed(req.agent_command)
    if names or commands:
        named = {m.name: m for m in config.members if m.name is not None}
        # `--agent NAME --agent-command CMD`, NAME no agent ralph knows: NAME names CMD
        # (in order, one name per command), as it always has
        labels = [n for n in names if n not in named and n not in REGISTRY]
        if not labels or len(labels) > len(commands):
            labels = []
        for wanted in names:
            entry = named.get(wanted)
            if entry is not None:
                chosen.append((entry, entry.name, entry.command, True))
            elif wanted not in labels:
                chosen.append((config.agent, wanted, None, False))
        chosen.extend(
            (config.agent, labels[i] if i < len(labels) else None, command, False)
            for i, command in enumerate(commands)
        )
    else:
        chosen = [(m, m.name, m.command, True) for m in config.members] or [
            (config.agent, None, None, True)
        ]

    members: list[Member] = []
    taken: set[str] = set()
    for entry, name, command, own in chosen:
        model = req.model if req.model is not None else entry.model if own else None
        agent = make_agent(name, command, entry.env, model, entry.args if own else [])
        if own and req.model is None:
            agent.models = {str(k): v for k, v in entry.models.items()}
        agent.resolve(req.root)  # a missing agent is an error before anything runs
        base, n = agent.name, 1
        while agent.name in taken:
            n += 1
            agent.name = f"{base}#{n}"
        taken.add(agent.name)
        members.append(
            Member(
                agent=agent,
                timeout=req.timeout if req.timeout is not None else entry.timeout,
                idle_timeout=req.idle_timeout
                if req.idle_timeout is not None
                else entry.idle_timeout,
                kill_grace=entry.kill_grace,
            )
        )
    return tuple(members)


def _listed(value: Sequence[str] | str | None) -> tuple[str, ...]:
    """A repeatable option's values; a single string is one value (run options saved by a
    ralph from before pools hold `--agent` as a string)."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)
