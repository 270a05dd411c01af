"""`ralph run` below the option parsing: configuration, agent and display around the loop."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunRequest:
    root: Path
    agent: str | None = None
    agent_command: str | None = None
    model: str | None = None
    max_iterations: int | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    plain: bool = False
    no_color: bool = False
    verbose: bool = False


def run_project(req: RunRequest) -> int:
    from ralph.agent import make_agent
    from ralph.config import load_config
    from ralph.loop import RunOptions, run_loop
    from ralph.ui import make_display

    config = load_config(req.root)
    command: str | list[str] | None
    if req.agent_command is not None:
        name, command = req.agent, req.agent_command
    elif req.agent is not None:
        name, command = req.agent, None
    else:
        name, command = config.agent.name, config.agent.command
    # `model:` and `args:` belong to the agent ralph.yaml configures, not to another one
    # picked with --agent for this run
    configured = command is config.agent.command and name == config.agent.name
    model = req.model if req.model is not None else config.agent.model if configured else None
    args = config.agent.args if configured else []
    agent = make_agent(name, command, config.agent.env, model, args)
    agent.resolve(req.root)  # a missing agent is an error before anything runs
    opts = RunOptions(
        root=req.root,
        agent=agent,
        max_iterations=req.max_iterations or config.max_iterations,
        timeout=req.timeout if req.timeout is not None else config.agent.timeout,
        idle_timeout=req.idle_timeout
        if req.idle_timeout is not None
        else config.agent.idle_timeout,
        kill_grace=config.agent.kill_grace,
    )
    with make_display(
        stream=sys.stdout, force_plain=req.plain, no_color=req.no_color, verbose=req.verbose
    ) as display:
        return run_loop(opts, display.handle)
