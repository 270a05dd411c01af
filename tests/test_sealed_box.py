"""The sealed run's command lines under each sandbox (process/sandbox.py, `sealed=True`): it
writes its room only; the project and the CLIs' folders are read-only, /tmp and TMPDIR its own.
Pure: no tool needs to be installed (the real bwrap run is in test_sealed_sandbox.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.process.sandbox import wrap
from tests.test_sandbox import ROOT, SCRATCH, box, pairs

STORE = Path("/home/u/.local/state/ralph")
ROOM = STORE / "projects" / "proj-1" / "rooms" / "main.sealed" / "tree"


def test_bwrap_the_sealed_run_writes_its_room_only() -> None:
    sandbox = box(deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    binds = pairs(argv, "--bind")
    assert binds == [(str(ROOM), str(ROOM))]
    ro = pairs(argv, "--ro-bind")
    assert (str(ROOT), str(ROOT)) in ro and ("/home/u/.claude", "/home/u/.claude") in ro
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    # its TMPDIR is its own and empty; the host's /tmp stays, read-only (an interpreter or a
    # checkout may live there), so nothing written there outlives the run
    assert "/tmp" not in tmpfs and str(SCRATCH / "tmp") in tmpfs
    assert ("/", "/") in ro and "/tmp" not in [b for b, _ in binds]
    normal, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM)
    assert (str(ROOT), str(ROOT)) in pairs(normal, "--bind")  # a check's run writes the tree


def test_docker_the_sealed_run_mounts_the_tree_read_only() -> None:
    sandbox = box("docker", image="img", deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    volumes = [argv[i + 1] for i, a in enumerate(argv) if a == "--volume"]
    assert f"{ROOT}:{ROOT}:ro" in volumes and f"{ROOM}:{ROOM}" in volumes
    assert not [v for v in volumes if v.startswith(str(SCRATCH))]
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert "/tmp" in tmpfs and str(SCRATCH / "tmp") in tmpfs


def test_srt_the_sealed_run_writes_its_room_and_a_tmp_beside_it(tmp_path: Path) -> None:
    store = tmp_path / "state"
    room = store / "rooms" / "main.sealed" / "tree"
    room.mkdir(parents=True)
    (room.parent / "manifest.json").write_text("{}")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    sandbox = box("srt", scratch=scratch, deny_read=(store,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), room, {}, "tok", room=room, sealed=True)
    settings = json.loads(Path(argv[argv.index("--settings") + 1]).read_text())["filesystem"]
    assert settings["allowWrite"] == [str(room), str(room.parent / "tmp")]
    assert str(room.parent / "manifest.json") in settings["denyRead"]
    assert f"TMPDIR={room.parent / 'tmp'}" in argv
