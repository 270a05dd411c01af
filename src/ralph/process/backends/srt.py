"""`--sandbox srt`: Anthropic's sandbox-runtime, bubblewrap plus a filtering proxy (the network
is an allow-list of hosts): its settings file, and the command line that runs a program in it."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph.plugins.hookspecs import hookimpl
from ralph.process.box import LOOPBACK, Backend, Sandbox, environments_of


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


def _host(entry: str) -> str:
    if entry.startswith("["):
        return entry.split("]", maxsplit=1)[0] + "]"
    return entry.rsplit(":", 1)[0] if entry.count(":") == 1 else entry


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
        )
    ]
