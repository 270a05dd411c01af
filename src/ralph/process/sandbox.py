"""The command line that runs a program inside the run's sandbox, by the backend registered for
its profile (ralph's own are plugins like any other: process/backends/, one module each; a new
one is its module and one line in `BUILTIN`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ralph.plugins.manager import plugins
from ralph.process.allowlist import AllowList
from ralph.process.backends import bwrap, docker, srt
from ralph.process.box import Backend, Sandbox

# ralph's own backends, in the order `doctor` and `--sandbox auto` try them
BUILTIN = (srt, bwrap, docker)


def wrap(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    env: Mapping[str, str],
    token: str,
    passes: frozenset[str] = frozenset(),
    room: Path | None = None,
    sealed: bool = False,
    allow: AllowList = AllowList(),  # noqa: B008 -- frozen, never changed
    *,
    writes: tuple[Path, ...] = (),
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command line and environment that run `argv` inside `box` (token: the run marker;
    `passes`: the names the process's own CLI needs, beyond the basic ones; `room`: a folder
    of the hidden store it may use all the same, a check's clean room; `sealed`: the sealed
    tests' run, which may write its room only, with a /tmp and TMPDIR of its own; `allow`:
    the run's rules for what of `env` it gets; `writes`: folders beside its room it may
    write, sealed or not)."""
    # IS_SANDBOX: the convention (Claude Code's among others) by which a CLI run as root in a
    # sandbox lets its permission prompts be bypassed; here it is true.
    given = env
    env = allow.boxed(env, passes)
    env = {**env, "TMPDIR": str(box.tmp), "RALPH_SANDBOX": box.profile, "IS_SANDBOX": "1"}
    return backends()[box.profile].wrap(box, argv, cwd, env, token, room, sealed, given, writes)


def backends() -> dict[str, Backend]:
    """The registered backends by name (ralph's own first; a name taken stays with the first)."""
    found = plugins()
    found.register(BUILTIN)
    registered: dict[str, Backend] = {}
    for plugin, offered in found.collect("ralph_sandbox_backends"):
        for backend in offered:
            if backend.name in registered:
                found.warn(plugin, f"sandbox backend {backend.name!r} is taken")
            else:
                registered[backend.name] = backend
    return registered
