"""process/backends/docker.py: `--sandbox docker`'s command line (pure, no tool needed)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ralph.process.backends.docker import container_name
from ralph.process.sandbox import wrap
from tests.process.test_sandbox import ROOM, ROOT, SCRATCH, STORE, box


def test_docker_passes_variables_by_name_so_no_key_is_on_the_command_line() -> None:
    sandbox = box("docker", image="ralph-agents:1", uid=1000, gid=1000)
    env = {"ANTHROPIC_API_KEY": "sk-ant-secret", "PATH": "/host/bin", "HOME": "/home/u"}
    argv, _ = wrap(
        sandbox,
        ("/opt/node/bin/claude", "-p"),
        ROOT,
        env,
        "abc123",
        frozenset({"ANTHROPIC_API_KEY"}),
    )
    assert "sk-ant-secret" not in " ".join(argv)
    assert ("--env", "ANTHROPIC_API_KEY") in itertools.pairwise(argv)
    assert "PATH" not in argv  # the image's own PATH finds the CLI
    assert argv[-3:] == ("ralph-agents:1", "claude", "-p")
    assert argv[argv.index("--name") + 1] == container_name("abc123")
    assert argv[argv.index("--user") + 1] == "1000:1000"
    # root in the container holds no capability, gains none, and writes only what is mounted
    assert ("--cap-drop", "ALL") in itertools.pairwise(argv)
    assert ("--security-opt", "no-new-privileges") in itertools.pairwise(argv)
    assert "--read-only" in argv
    assert f"{ROOT}:{ROOT}" in argv
    assert "/home/u/.ssh" not in " ".join(argv)  # only what is mounted is there at all


def test_docker_hides_a_store_that_a_mounted_folder_holds() -> None:
    # ralph's private stores under a state folder the person made writable: a tmpfs over them
    state = Path("/home/u/.local/state")
    stores = state / "ralph"
    sandbox = box("docker", image="i", writable=(state,), deny_read=(stores, Path("/home/u/.ssh")))
    argv, _ = wrap(sandbox, ("claude",), ROOT, {}, "abc")
    assert ("--tmpfs", str(stores)) in itertools.pairwise(argv)
    assert "/home/u/.ssh" not in " ".join(argv)  # not mounted at all: nothing to hide


def test_docker_without_an_image_is_refused() -> None:
    with pytest.raises(ValueError, match="image"):
        wrap(box("docker"), ("/bin/true",), ROOT, {}, "t")


def test_docker_the_sealed_run_mounts_the_tree_read_only() -> None:
    sandbox = box("docker", image="img", deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    volumes = [argv[i + 1] for i, a in enumerate(argv) if a == "--volume"]
    assert f"{ROOT}:{ROOT}:ro" in volumes and f"{ROOM}:{ROOM}" in volumes
    assert not [v for v in volumes if v.startswith(str(SCRATCH))]
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert "/tmp" in tmpfs and str(SCRATCH / "tmp") in tmpfs
