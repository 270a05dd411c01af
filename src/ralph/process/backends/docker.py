"""`--sandbox docker`: a container of an image that holds the agent CLIs (the network is
Docker's): the command line that runs a program in it, in a container named after the run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ralph.plugins.hookspecs import hookimpl
from ralph.process.box import Backend, Sandbox, environments_of


def container_name(token: str) -> str:
    """The name of the container a docker-profile process runs in (killed by it)."""
    return f"ralph-{token[:24]}"


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
            "docker",
            "docker",
            "install Docker or Podman (as docker) and start its daemon",
            _wrap_docker,
        )
    ]
