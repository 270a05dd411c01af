"""What a sandbox allows (no I/O here): the one run's `Sandbox`, and what a sandbox backend is.

Three backends are ralph's own, each built on a maintained tool rather than on rules of ralph's
own, each its own module registered as a plugin (`ralph_sandbox_backends`, process/backends/):
`srt` (Anthropic's sandbox-runtime: bubblewrap plus a filtering proxy, so the network is an
allow-list of hosts), `bwrap` (bubblewrap alone: the same filesystem rules, the network is not
filtered) and `docker` (a container image; the network is Docker's). process/sandbox.py wraps
a command in the run's; `containment` prepares and probes it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
