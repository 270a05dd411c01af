"""`--sandbox bwrap`: bubblewrap alone (the filesystem rules of srt; the network not filtered)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ralph.plugins.hookspecs import hookimpl
from ralph.process.box import Backend, Sandbox, environments_of


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


@hookimpl
def ralph_sandbox_backends() -> list[Backend]:
    return [
        Backend(
            "bwrap",
            "bwrap",
            "install bubblewrap (apt-get install bubblewrap; dnf install bubblewrap)",
            _wrap_bwrap,
        )
    ]
