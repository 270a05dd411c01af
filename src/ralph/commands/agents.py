"""`ralph agents`: every built-in agent, whether it is installed (and its version), and the
command line a rotation runs."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.registry import clis

MODES = ("IMPLEMENT", "REVIEW", "VERIFY", "JUDGE")
VERSION_TIMEOUT = 15.0  # seconds for `CLI --version` (a node CLI can take a few on a cold cache)
_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-+.][0-9A-Za-z.]+)?")


def agents(root: Path, *, as_json: bool) -> None:
    rows = list_agents(root)
    if as_json:
        import json

        from ralph.schemas.catalog import SCHEMA_VERSION

        print(json.dumps({"schema_version": SCHEMA_VERSION, "agents": rows}))
    else:
        from ralph.rules.text.printable import printable_lines

        print(printable_lines(render(rows)), end="")  # commands and names from ralph.yaml


def probe_version(agent: BuiltinAgent, exe: str) -> str | None:
    """The version `exe --version` prints, or None when it fails or says nothing useful."""
    from ralph.process.request import OPEN, ProcessRequest
    from ralph.process.runner import run_process

    env = {**os.environ, **agent.default_env(), **agent.extra_env}
    out: list[bytes] = []
    try:
        result = run_process(
            ProcessRequest(
                argv=(exe, "--version"),
                cwd=Path.cwd(),
                env=env,
                timeout=VERSION_TIMEOUT,
                kill_grace=1.0,
                tail_bytes=4096,
                confined=OPEN,  # outside a run: the CLI as the user has it
            ),
            lambda stream, chunk: out.append(chunk) if stream == "stdout" else None,
        )
    except Exception:  # a broken CLI is reported as "no version", never a crash
        return None
    if result.exit_code != 0:
        return None
    text = result.stdout_tail.decode("utf-8", "replace") or result.stderr_tail.decode("utf-8")
    match = _VERSION.search(text)
    return match.group(0) if match else None


def describe(agent: BuiltinAgent) -> dict[str, Any]:
    path = agent.find()
    return {
        "name": agent.key,
        "title": agent.title,
        "installed": path is not None,
        "path": path,
        "version": probe_version(agent, path) if path else None,
        "command": agent.invocation(path),
        "model": agent.model,
        # per mode, when ralph.yaml's `models:` gives this agent one model or more
        "modes": _modes(agent, path) if agent.models else None,
        "env": agent.default_env(),
        # what ralph.yaml's agent env adds: names only, a value may be a secret
        "agent_env": sorted(agent.extra_env),
        "install": agent.install,
    }


def _modes(agent: BuiltinAgent, path: str | None) -> dict[str, dict[str, Any]]:
    """Each mode's model and command line (ralph.yaml's `models:` chooses per mode)."""
    out: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        chosen = agent.for_mode(mode)
        assert isinstance(chosen, BuiltinAgent)
        out[mode.lower()] = {"model": chosen.model, "command": chosen.invocation(path)}
    return out


def list_agents(root: Path) -> list[dict[str, Any]]:
    """Every built-in agent, with ralph.yaml's `model:`, `models:`, `args:` and `env:` where
    they apply (the `agent:` entry, or the pool's entry of that name)."""
    from ralph import __version__
    from ralph.store.person.settings import settings_for

    loaded, held = settings_for(root, "agents")
    if held is not None:
        print(f"warning: {held}", file=sys.stderr)
    config = loaded.agent
    named = {m.name: m for m in loaded.members if m.name is not None and m.command is None}
    agents: list[BuiltinAgent] = []
    for key, cls in clis().items():
        entry = named.get(key)
        agent = cls(
            env=entry.env if entry else config.env,
            model=entry.model if entry else None,
            args=entry.args if entry else (),
        )
        agent.models = {str(k): v for k, v in entry.models.items()} if entry else {}
        agents.append(agent)
    # One at a time: each probe reaps its own orphans, and must never collect another's child.
    rows = [describe(agent) for agent in agents]
    _add_limits(root, rows)
    rows.append(
        {
            "name": "demo",
            "title": "ralph's scripted demo agent",
            "installed": True,
            "path": sys.executable,
            "version": __version__,
            "command": "python -m ralph.agents.demo < .ralph/prompt.md",
            "model": None,
            "modes": None,
            "env": {},
            "agent_env": [],
            "install": "ships with ralph",
        }
    )
    return rows


def _add_limits(root: Path, rows: list[dict[str, Any]]) -> None:
    """Each agent's limit windows as its CLI last reported them in this project's runs."""
    import time

    from ralph.rules.agents.limits import describe as describe_limits
    from ralph.store.records.limits import load_limits

    saved = load_limits(root / ".ralph").get("agents", {})
    now = time.time()
    for row in rows:
        windows = saved.get(row["name"])
        row["limits"] = windows if isinstance(windows, dict) else None
        row["limits_text"] = describe_limits(windows, now) if row["limits"] else None


def render(rows: list[dict[str, Any]]) -> str:
    width = max(len(row["name"]) for row in rows)
    lines: list[str] = []
    for row in rows:
        if row["installed"]:
            state = f"installed {row['version'] or '(version unknown)'}  {row['path']}"
        else:
            state = f"not installed ({row['install']})"
        lines.append(f"{row['name']:<{width}}  {row['title']}: {state}")
        if row.get("modes"):
            for mode, how in row["modes"].items():
                lines.append(f"{'':<{width}}  {mode:<9} $ {how['command']}")
        else:
            lines.append(f"{'':<{width}}  $ {row['command']}")
        if row.get("limits_text"):
            lines.append(f"{'':<{width}}  limits: {row['limits_text']}")
        if row.get("agent_env"):
            lines.append(f"{'':<{width}}  agent.env sets {', '.join(row['agent_env'])}")
    return "\n".join(lines) + "\n"
