"""What a sandbox allows, and the command line that runs a program inside it (no I/O here).

Three profiles (backends), each built on a maintained tool rather than on rules of ralph's own,
registered as plugins (the `ralph_sandbox_backends` hook, implemented at the end of this module):
`srt` (Anthropic's sandbox-runtime: bubblewrap plus a filtering proxy, so the network is an
allow-list of hosts), `bwrap` (bubblewrap alone: the same filesystem rules, the network is not
filtered) and `docker` (a container image; the network is Docker's). `containment` prepares and
probes a sandbox and makes it the one every process of a run starts in.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import plugins
from ralph.process.allowlist import AllowList

# The names `--sandbox` and ralph.yaml's `sandbox:` accept (the options' types); each is a
# registered backend (tests/process/test_sandbox.py holds the two the same).
Profile = Literal["srt", "bwrap", "docker"]
# Hosts that mean "this machine": allowing one routes loopback through the filtering proxy to
# the host (a local model server, the mock LLM) instead of the sandbox's own loopback.
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


@dataclass(frozen=True)
class Sandbox:
    """One run's sandbox: what may be written, what may not be read, which hosts are reachable."""

    profile: Profile
    tool: str  # absolute path of srt, bwrap or docker
    project: Path  # writable: the project, with ralph's state and lane worktrees under it
    scratch: Path  # ralph's private folder for this run: the temporary folder and srt's rules
    writable: tuple[Path, ...] = ()  # the agent CLIs' config and cache folders (their logins)
    deny_read: tuple[Path, ...] = ()  # secrets folders the agent may not even read
    deny_files: tuple[Path, ...] = ()  # secret files (~/.netrc), likewise
    # Inside a writable folder but kept read-only: what ralph's own git would run outside the
    # sandbox (.git/hooks, .git/config's core.fsmonitor and the like).
    read_only: tuple[Path, ...] = ()
    hosts: tuple[str, ...] = ()  # host or host:port; every other host is refused (srt)
    image: str | None = None  # docker: the image holding the agent CLIs
    uid: int = 0  # docker: the user the container runs as (the caller's, so files stay theirs)
    gid: int = 0

    @property
    def tmp(self) -> Path:
        """The private temporary folder (TMPDIR inside the sandbox)."""
        return self.scratch / "tmp"

    @property
    def settings(self) -> Path:
        """srt's rules for this run, written by `containment.prepare`."""
        return self.scratch / "srt-settings.json"

    @property
    def filters_network(self) -> bool:
        return self.profile == "srt"

    def describe(self) -> str:
        """One line for the run's start: the profile and what it holds back."""
        net = (
            f"network only to {', '.join(self.hosts) or 'no host'}"
            if self.filters_network
            else "network not filtered"
        )
        return f"sandbox {self.profile}: writes only to the project, its CLIs' folders; {net}"


def container_name(token: str) -> str:
    """The name of the container a docker-profile process runs in (killed by it)."""
    return f"ralph-{token[:24]}"


def srt_settings(box: Sandbox) -> dict[str, Any]:
    """sandbox-runtime's settings file for this sandbox."""
    return {
        "filesystem": {
            "denyRead": [str(p) for p in (*box.deny_read, *box.deny_files)],
            "allowWrite": [str(box.project), str(box.tmp), *(str(p) for p in box.writable)],
            # what may not be read may not be written either, even inside a writable folder
            # (ralph's private stores under a state folder a CLI or a person made writable)
            "denyWrite": [
                str(box.settings),
                *(str(p) for p in (*box.read_only, *box.deny_read, *box.deny_files)),
            ],
        },
        "network": {"allowedDomains": list(box.hosts), "deniedDomains": []},
    }


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


# (box, argv, cwd, the environment it gets, token, room, sealed, ralph's own environment,
# the folders beside its room it may write) -> the command line and the environment that run
# it inside the box
Wrap = Callable[
    [
        Sandbox,
        tuple[str, ...],
        Path,
        dict[str, str],
        str,
        Path | None,
        bool,
        Mapping[str, str],
        tuple[Path, ...],
    ],
    tuple[tuple[str, ...], dict[str, str]],
]


@dataclass(frozen=True)
class Backend:
    """A sandbox backend: its `--sandbox` name, the tool it runs (looked up on PATH), how to
    install it (said by `doctor` and a refused start), and how it wraps a command."""

    name: str
    tool: str
    install: str
    wrap: Wrap


def backends() -> dict[str, Backend]:
    """The registered backends by name (ralph's own first; a name taken stays with the first)."""
    found = plugins()
    found.register((sys.modules[__name__],))
    registered: dict[str, Backend] = {}
    for plugin, offered in found.collect("ralph_sandbox_backends"):
        for backend in offered:
            if backend.name in registered:
                found.warn(plugin, f"sandbox backend {backend.name!r} is taken")
            else:
                registered[backend.name] = backend
    return registered


def _wrap_srt(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    env: dict[str, str],
    token: str,
    room: Path | None,
    sealed: bool,
    given: Mapping[str, str],
    writes: tuple[Path, ...] = (),
) -> tuple[tuple[str, ...], dict[str, str]]:
    # srt makes its proxy's sockets in TMPDIR: a path short enough for a socket (108
    # bytes) and private to the run; the program inside gets its own TMPDIR back.
    return _srt(box, argv, room, sealed, writes), {**env, "TMPDIR": str(box.scratch)}


def _wrap_bwrap(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    env: dict[str, str],
    token: str,
    room: Path | None,
    sealed: bool,
    given: Mapping[str, str],
    writes: tuple[Path, ...] = (),
) -> tuple[tuple[str, ...], dict[str, str]]:
    return _bwrap(box, argv, cwd, room, sealed, writes), env


def _wrap_docker(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    env: dict[str, str],
    token: str,
    room: Path | None,
    sealed: bool,
    given: Mapping[str, str],
    writes: tuple[Path, ...] = (),
) -> tuple[tuple[str, ...], dict[str, str]]:
    # The docker client itself needs its own settings (DOCKER_HOST, DOCKER_CONFIG...); only
    # the variables passed above go into the container.
    client = {k: v for k, v in given.items() if k.startswith("DOCKER_")}
    return _docker(box, argv, cwd, env, token, room, sealed, writes), {**client, **env}


def _srt(
    box: Sandbox,
    argv: tuple[str, ...],
    room: Path | None,
    sealed: bool = False,
    writes: tuple[Path, ...] = (),
) -> tuple[str, ...]:
    # srt points TMPDIR at a folder it shares between runs: this run's own comes back (the
    # sealed run's is its own, beside its room, hidden from the agent with the store).
    settings = box.settings if room is None else _room_settings(box, room, sealed, writes)
    tmp = room.parent / "tmp" if room is not None and sealed else box.tmp
    head: tuple[str, ...] = (box.tool, "--settings", str(settings), "--", "/usr/bin/env")
    if any(_host(h) in LOOPBACK for h in box.hosts):
        # srt exempts loopback from its proxy, but inside the sandbox loopback is the
        # sandbox's own: an allowed host service is reached only through the proxy.
        head += ("-u", "NO_PROXY", "-u", "no_proxy")
    return (*head, f"TMPDIR={tmp}", *argv)


def _room_settings(
    box: Sandbox, room: Path, sealed: bool = False, writes: tuple[Path, ...] = ()
) -> Path:
    """srt's rules for a process working in `room`: the run's, with the hidden folder that
    holds the room replaced by everything in it on the way but the room (srt has no rule
    to show a folder inside a hidden one)."""
    rules = srt_settings(box)
    fs = rules["filesystem"]
    envs = environments_of(room)  # shown too, and not writable (not in allowWrite)
    for hidden in (p for p in box.deny_read if p in room.parents):
        fs["denyRead"].remove(str(hidden))
        fs["denyWrite"].remove(str(hidden))
        ways: dict[Path, set[str]] = {}  # folder -> its entries on the way to what is shown
        for shown in (room, *(e for e in envs if hidden in e.parents)):
            folder = hidden
            for part in shown.relative_to(hidden).parts:
                ways.setdefault(folder, set()).add(part)
                folder = folder / part
        for folder, keep in ways.items():
            with contextlib.suppress(OSError):
                others = [str(p) for p in folder.iterdir() if p.name not in keep]
                fs["denyRead"] += others
                fs["denyWrite"] += others
    fs["allowWrite"].append(str(room))
    if sealed:  # its room and its own TMPDIR beside it (hidden from the agent) only
        fs["allowWrite"] = [str(room), str(room.parent / "tmp")]
        for rule in ("denyRead", "denyWrite"):
            fs[rule] = [p for p in fs[rule] if p != str(room.parent / "tmp")]
    fs["allowWrite"] += [str(p) for p in writes]
    digest = hashlib.sha256(f"{room}{sealed}{writes}".encode()).hexdigest()[:12]
    path = box.scratch / f"srt-room-{digest}.json"
    path.write_text(json.dumps(rules, indent=1), encoding="utf-8")
    return path


def environments_of(room: Path) -> list[Path]:
    """The folders of the hidden store a room's environments link into (ralph's copies of the
    project's virtualenvs and node_modules: store/environments/envcopy.py): a check reads them,
    never
    writes them. The `envs` folder that holds them all: a built one reads the start's too."""
    out: set[Path] = set()
    for name in (".venv", "venv", "env", "node_modules"):
        folder = room / name
        if folder.is_symlink() or not folder.is_dir():
            continue
        with contextlib.suppress(OSError):
            for entry in folder.iterdir():
                if not entry.is_symlink():
                    continue
                target = entry.resolve()
                if room in target.parents:
                    continue
                found = next((p for p in target.parents if p.name == "envs"), target.parent)
                out.add(found)
    return sorted(out)


def _host(entry: str) -> str:
    if entry.startswith("["):
        return entry.split("]", maxsplit=1)[0] + "]"
    return entry.rsplit(":", 1)[0] if entry.count(":") == 1 else entry


def _bwrap(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    room: Path | None,
    sealed: bool = False,
    writes: tuple[Path, ...] = (),
) -> tuple[str, ...]:
    # --die-with-parent and the pid namespace: when ralph kills bwrap, the kernel kills
    # everything inside, daemons included. --new-session: no terminal to inject input into.
    args = ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc"]
    # A user namespace (the caller's uid mapped to itself) and no capability at all: bwrap
    # started by root otherwise keeps every capability, and root inside could unmount what
    # hides the store, remount a read-only folder writable or bind one anywhere. The mounts
    # a user namespace inherits are locked too, so a nested one cannot undo them either.
    args += ["--unshare-user", "--cap-drop", "ALL"]
    # The host's /tmp stays visible, read-only like the rest: what lives there (a checkout, the
    # agent's own install) must still run. The agent writes temporary files to its private
    # TMPDIR, bound writable below, as under srt.
    # The sealed run too: a /tmp of its own would hide an interpreter or a checkout that lives
    # there, and the host's is read-only, so nothing it copies there outlives it.
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in (box.project, box.tmp, *box.writable):
        if sealed and path == box.tmp:
            args += ["--tmpfs", str(path)]  # its TMPDIR: empty, and gone with it
        else:
            args += ["--ro-bind" if sealed else "--bind", str(path), str(path)]
    # After the binds: what is read-only or hidden inside a writable folder stays so.
    for path in box.read_only:
        args += ["--ro-bind", str(path), str(path)]
    for path in box.deny_read:
        args += ["--tmpfs", str(path)]
    for path in box.deny_files:
        args += ["--ro-bind", "/dev/null", str(path)]
    if room is not None:  # after the hiding: the one folder of the store it works in
        args += ["--bind", str(room), str(room)]
        for path in environments_of(room):
            args += ["--ro-bind", str(path), str(path)]
    for path in writes:
        args += ["--bind", str(path), str(path)]
    args += ["--chdir", str(cwd), "--"]
    return (box.tool, *args, *argv)


# Variables that describe the host, not the program: the image has its own.
_HOST_ONLY = frozenset({"PATH", "HOSTNAME", "LD_LIBRARY_PATH", "PYTHONHOME", "VIRTUAL_ENV"})


def _docker(
    box: Sandbox,
    argv: tuple[str, ...],
    cwd: Path,
    env: Mapping[str, str],
    token: str,
    room: Path | None = None,
    sealed: bool = False,
    writes: tuple[Path, ...] = (),
) -> tuple[str, ...]:
    args = ["run", "--rm", "-i", "--init", "--name", container_name(token)]
    args += ["--user", f"{box.uid}:{box.gid}", "--security-opt", "no-new-privileges"]
    # No capability (root's DAC override and chown among Docker's defaults) and the image
    # read-only: as under bwrap, only the mounted folders below and /tmp are writable.
    args += ["--cap-drop", "ALL", "--read-only", "--tmpfs", "/tmp", "-w", str(cwd)]
    for path in (box.project, box.tmp, *box.writable):  # the sealed run writes its room only
        if sealed and path == box.tmp:
            args += ["--tmpfs", str(path)]
        else:
            args += ["--volume", f"{path}:{path}" + (":ro" if sealed else "")]
    for path in box.read_only:
        args += ["--volume", f"{path}:{path}:ro"]
    mounted = (box.project, box.tmp, *box.writable)
    for path in box.deny_read:  # only the mounted folders are there at all: hide inside them
        if any(m == path or m in path.parents for m in mounted):
            args += ["--tmpfs", str(path)]
    if room is not None:
        args += ["--volume", f"{room}:{room}"]
        args += [a for p in environments_of(room) for a in ("--volume", f"{p}:{p}:ro")]
    args += [a for p in writes for a in ("--volume", f"{p}:{p}")]
    # `-e NAME` without a value: docker copies it from its own environment, so no key is on
    # a command line that `ps` shows.
    for name in sorted(env):
        if name not in _HOST_ONLY:
            args += ["--env", name]
    if box.image is None:
        raise ValueError("the docker profile needs an image")
    # The image's own PATH finds the CLI: the host's absolute path means nothing inside.
    return (box.tool, *args, box.image, Path(argv[0]).name, *argv[1:])


@hookimpl
def ralph_sandbox_backends() -> list[Backend]:
    return [
        Backend(
            "srt",
            "srt",
            "install bubblewrap, socat and ripgrep (apt-get install bubblewrap socat ripgrep) "
            "and sandbox-runtime (npm install -g @anthropic-ai/sandbox-runtime), so srt is on "
            "PATH",
            _wrap_srt,
        ),
        Backend(
            "bwrap",
            "bwrap",
            "install bubblewrap (apt-get install bubblewrap; dnf install bubblewrap)",
            _wrap_bwrap,
        ),
        Backend(
            "docker",
            "docker",
            "install Docker or Podman (as docker) and start its daemon",
            _wrap_docker,
        ),
    ]
