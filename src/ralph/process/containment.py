"""The sandbox every process of a run starts in: prepared, probed once, its folder removed as
the run ends.

One sandbox for the whole run, passed as a value: the run's options carry it
(`Confinement`, process/request.py) to every request that starts an agent, a judge or a check
command, and `spawn` wraps what a request runs in the sandbox the request names. A request
must say where it starts (no default), so no caller can forget it; only ralph's own helpers
outside a run say OPEN.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

from ralph.process import started
from ralph.process.backends.docker import container_name
from ralph.process.backends.srt import srt_settings
from ralph.process.box import Sandbox
from ralph.process.sandbox import wrap

SCRATCH_PREFIX = "ralph-sandbox-"
PROBE_TIMEOUT = 30.0  # seconds: srt starts node and its proxies; bwrap takes milliseconds


def scratch_folder() -> Path:
    """A new private folder for one run's sandbox (its TMPDIR, srt's rules and sockets): under
    /tmp rather than a TMPDIR that may be long, for srt's sockets (108 bytes at most)."""
    short = "/tmp" if Path("/tmp").is_dir() and os.access("/tmp", os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=short))


def remove_left(recorded: object) -> bool:
    """Remove the sandbox folder a run killed with SIGKILL could not: the one its run record in
    ralph's store names (no sandboxed agent can write there). Only a folder of the shape
    `scratch_folder` makes, the caller's own and no link, whatever the record says."""
    if not isinstance(recorded, str) or not recorded:
        return False
    path = Path(recorded)
    temp = {Path("/tmp"), Path(tempfile.gettempdir())}
    if not path.is_absolute() or path.parent not in temp or ".." in path.parts:
        return False
    if not path.name.startswith(SCRATCH_PREFIX):
        return False
    try:
        info = path.lstat()
    except OSError:
        return False  # already gone
    owner = os.getuid() if hasattr(os, "getuid") else info.st_uid
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != owner:
        return False
    shutil.rmtree(path, ignore_errors=True)
    return not path.exists()


def prepare(box: Sandbox) -> None:
    """Create the private folders and write srt's rules; OSError when it cannot."""
    box.tmp.mkdir(parents=True, exist_ok=True)
    box.scratch.chmod(0o700)
    if box.profile == "srt":
        box.settings.write_text(json.dumps(srt_settings(box), indent=1), encoding="utf-8")


def probe(box: Sandbox, env: Mapping[str, str]) -> str | None:
    """Why `box` cannot run a program on this machine, or None when it can (runs `true`)."""
    if box.profile == "docker":
        # The image first: `docker run` would try to pull a missing one, for minutes.
        inspect = (box.tool, "image", "inspect", "--format", "ok", str(box.image))
        reason = _try(box, inspect, env)
        if reason is not None:
            return reason
        token = uuid.uuid4().hex
        argv, env = wrap(box, ("true",), box.project, env, token)
        reason = _try(box, argv, env)
        if reason is not None:
            release(box, token)  # a container the timeout left behind
        return reason
    argv, env = wrap(box, ("/bin/sh", "-c", "true"), box.project, env, "probe")
    return _try(box, argv, env)


def _try(box: Sandbox, argv: tuple[str, ...], env: Mapping[str, str]) -> str | None:
    try:
        done = started.run(
            argv,
            cwd=box.project,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT,
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        return f"{box.tool} did not finish a test run within {PROBE_TIMEOUT:g} s"
    except OSError as exc:
        return f"{box.tool}: {exc.strerror or exc}"
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    said = lines[-1].strip() if lines else f"exit code {done.returncode}"
    return f"{Path(box.tool).name} failed a test run: {said}"


@contextlib.contextmanager
def kept(box: Sandbox | None) -> Iterator[None]:
    """The sandbox's private folder (its TMPDIR, srt's rules) for the block: removed after."""
    try:
        yield
    finally:
        if box is not None:
            shutil.rmtree(box.scratch, ignore_errors=True)


def release(box: Sandbox | None, token: str) -> None:
    """After a process ended: remove what outlives its command line (a docker container)."""
    if box is None or box.profile != "docker":
        return
    # Killing the docker client does not stop its container: remove it by name, bounded.
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        started.run(
            (box.tool, "rm", "--force", container_name(token)),
            stdin=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT,
        )
