"""`ralph doctor`: can a run start here? The sandbox profiles (each probed with a test run) and
every agent CLI (installed, its version, logged in), without spending a token: logins are read
from credential variables and files, never by calling an API. Exit 1 when something ralph.yaml
needs is broken; what is not needed is reported but does not fail.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.command import CommandAgent
from ralph.agents.footprint import credentials
from ralph.agents.member import Member
from ralph.errors import ExitCode, RalphError
from ralph.process.sandbox import backends
from ralph.store.person.config import RalphConfig

# each area's heading, in the order doctor prints them
AREAS = {
    "sandbox": "sandbox",
    "tests": "tests",
    "packages": "packages",
    "agent": "agents",
    "plugin": "plugins",
}


@dataclass(frozen=True)
class Check:
    area: str  # sandbox | tests | packages | agent | plugin
    name: str
    state: str  # ok | warn | fail
    detail: str
    needed: bool  # ralph.yaml (or its defaults) asks for it
    fix: str | None = None


def doctor(root: Path, *, as_json: bool) -> int:
    """Print every check; 1 when one that is needed failed, else 0."""
    import sys

    from ralph.store.person.settings import settings_for

    config, held = settings_for(root, "doctor")
    if held is not None:
        print(f"warning: {held}", file=sys.stderr)
    from ralph.commands.plugins import every_plugin

    every_plugin(root, config)  # the person's plugins first: their agents and backends too
    pool = _pool(config)
    checks = [*sandbox_checks(root, config, pool), tests_check(root, config)]
    checks += index_checks(root)
    checks += [*agent_checks(config, pool), *plugin_checks(root, config)]
    broken = [c for c in checks if c.needed and c.state == "fail"]
    if as_json:
        import json

        from ralph.schemas.catalog import SCHEMA_VERSION

        found = [asdict(c) for c in checks]
        print(json.dumps({"schema_version": SCHEMA_VERSION, "ok": not broken, "checks": found}))
    else:
        from ralph.rules.text.printable import printable_lines

        print(printable_lines(render(checks)), end="")  # commands and names from ralph.yaml
    return int(ExitCode.ERROR if broken else ExitCode.OK)


def _pool(config: RalphConfig) -> list[CommandAgent]:
    from ralph.agents.registry import make_agent

    agents: list[CommandAgent] = []
    for entry in config.members:
        try:
            agents.append(make_agent(entry.name, entry.command, entry.env, entry.model, entry.args))
        except RalphError:
            continue  # an unknown name: parsing the settings would have said; the run will
    return agents


def plugin_checks(root: Path, config: RalphConfig) -> list[Check]:
    """The person's plugins: each loaded one (ok), each left out (warn), each ralph.yaml
    requires and is not loaded (fail: a run would refuse to start)."""
    from ralph.commands.plugins import every_plugin, missing

    found = every_plugin(root, config)
    checks = [
        Check("plugin", p.name, "ok", f"{p.distribution or '?'} {p.version} in {p.source}", False)
        for p in found.loaded.values()
        if p.source != "built-in"
    ]
    lacking = missing(found, config)
    checks += [
        Check("plugin", r.name, "warn", r.reason, False)
        for r in found.refused
        if r.name not in lacking
    ]
    checks += [
        Check(
            "plugin",
            name,
            "fail",
            why,
            True,
            "install it beside ralph, or drop it from plugins.require",
        )
        for name, why in lacking.items()
    ]
    return checks


def sandbox_checks(root: Path, config: RalphConfig, pool: list[CommandAgent]) -> list[Check]:
    from ralph.commands.sandboxing import AUTO_ORDER, start_sandbox

    wanted = config.sandbox.profile
    needed = set(AUTO_ORDER) if wanted == "auto" else {wanted}
    members = [Member(agent) for agent in pool]
    checks = [Check("sandbox", "sandbox", "ok", f"ralph.yaml asks for: {wanted}", False)]
    for profile in backends():
        if profile == "docker" and not config.sandbox.image and profile not in needed:
            tool = shutil.which("docker")
            detail = f"{tool} (no sandbox.image named)" if tool else "docker not found on PATH"
            checks.append(Check("sandbox", profile, "warn", detail, False))
            continue
        try:
            box = start_sandbox(root, profile, config.sandbox, members)
        except RalphError as exc:
            state = "fail" if profile in needed else "warn"
            checks.append(
                Check("sandbox", profile, state, exc.message, profile in needed, exc.hint)
            )
            continue
        assert box is not None
        shutil.rmtree(box.scratch, ignore_errors=True)
        checks.append(Check("sandbox", profile, "ok", box.describe(), profile in needed))
    return checks


def tests_check(root: Path, config: RalphConfig) -> Check:
    """The test files the test guard recognises: none is a warning, not a failure."""
    from ralph.checks.recognised import NONE, SET, found_line, recognised_tests

    count = len(recognised_tests(root, config.tests.paths))
    if count:
        return Check("tests", "files", "ok", found_line(count), True)
    return Check("tests", "files", "warn", NONE, True, SET)


def index_checks(root: Path) -> list[Check]:
    """The package index, when the tree declares dependencies: a DONE that adds one builds
    the checks' environment from it (store/environments/envbuild.py). Unreachable is a warning: a
    run whose
    declarations do not change never asks it."""
    from ralph.store.environments.indexprobe import probe_index

    probe = probe_index(root, os.environ)
    if probe is None:
        return []
    if probe.ok:
        return [Check("packages", "index", "ok", probe.detail, True)]
    fix = "check the network and your index settings (UV_INDEX_URL, your uv.toml)"
    return [Check("packages", "index", "warn", probe.detail, True, fix)]


def agent_checks(config: RalphConfig, pool: list[CommandAgent]) -> list[Check]:
    from ralph.agents.registry import clis
    from ralph.commands.agents import probe_version

    used = {a.key for a in pool if isinstance(a, BuiltinAgent)}
    own = {a.key: a for a in pool if isinstance(a, BuiltinAgent)}
    checks: list[Check] = []
    for key, cls in clis().items():
        agent = own.get(key) or cls(env=config.agent.env)
        needed = key in used
        exe = agent.find()
        if exe is None:
            state = "fail" if needed else "warn"
            checks.append(Check("agent", key, state, "not installed", needed, agent.install_hint()))
            continue
        version = probe_version(agent, exe) or "version unknown"
        check = _login(agent, f"{version}  {exe}", needed)
        checks.append(_as_root(check, agent, config) if check.state == "ok" else check)
    checks += [_custom(a) for a in pool if not isinstance(a, BuiltinAgent)]
    return checks


def _login(agent: BuiltinAgent, found: str, needed: bool) -> Check:
    if agent.footprint is None:
        return Check("agent", agent.key, "ok", found, needed)
    env = {**os.environ, **agent.extra_env}
    # a custom provider's key variable counts as a login too (Codex's `env_key`)
    footprint = replace(agent.footprint, key_vars=agent.key_vars())
    source = credentials(footprint, Path.home(), env)
    if source is not None:
        return Check("agent", agent.key, "ok", f"{found}; credentials: {source}", needed)
    if footprint.certain:
        state = "fail" if needed else "warn"
        detail = f"{found}; not logged in: no credentials found"
    else:
        # Its login may be where ralph cannot look (a keychain, a provider's own file).
        state = "warn"
        detail = f"{found}; no credentials found where ralph can look"
    return Check("agent", agent.key, state, detail, needed, footprint.login_hint)


def _as_root(check: Check, agent: BuiltinAgent, config: RalphConfig) -> Check:
    """Claude Code refuses to skip its permission prompts (as ralph runs it) when run as root,
    unless IS_SANDBOX=1 says the machine is a sandbox (ralph's sandboxes set it): the run's own
    hint, before the run."""
    from ralph.run.seats import ROOT_HINT

    root = getattr(os, "geteuid", lambda: -1)() == 0
    marked = {**os.environ, **agent.extra_env}.get("IS_SANDBOX") == "1"
    if agent.key != "claude" or not root or marked or config.sandbox.profile != "off":
        return check
    state = "fail" if check.needed else "warn"
    detail = f"{check.detail}; it refuses to start as root without IS_SANDBOX=1"
    return replace(check, state=state, detail=detail, fix=ROOT_HINT)


def _custom(agent: CommandAgent) -> Check:
    try:
        argv = agent.resolve(Path.cwd())
    except RalphError as exc:
        return Check("agent", agent.name, "fail", exc.message, True, exc.hint)
    return Check("agent", agent.name, "ok", f"custom command: {argv[0]}", True)


def render(checks: list[Check]) -> str:
    width = max(len(c.name) for c in checks)
    lines: list[str] = []
    area = ""
    # CLIs nobody asked for and not installed: one line, not one each
    absent = [
        c for c in checks if c.area == "agent" and not c.needed and c.detail == "not installed"
    ]
    for check in [c for c in checks if c not in absent]:
        if check.area != area:
            area = check.area
            lines.append(AREAS[area])
        # what ralph.yaml does not need is no warning, whatever its probe found: said, no fix
        idle = not check.needed and check.state != "ok"
        mark = "-   " if idle else {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[check.state]
        needed = " (not needed)" if idle else ""
        lines.append(f"  {mark}  {check.name:<{width}}  {check.detail}{needed}")
        if check.fix and check.state != "ok" and not idle:
            lines.append(f"        {'':<{width}}  fix: {check.fix}")
    if absent:
        if area != "agent":
            lines.append("agents")
        names = ", ".join(c.name for c in absent)
        lines.append(f"  -     not installed, not needed by this ralph.yaml: {names}")
    broken = sum(1 for c in checks if c.needed and c.state == "fail")
    if broken:
        lines.append(f"{broken} problem(s) stop a run with this ralph.yaml; fix them and run again")
    else:
        lines.append("ready: everything this ralph.yaml needs works here")
    return "\n".join(lines) + "\n"
