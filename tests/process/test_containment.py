"""process/containment.py: the run's sandbox folder made private, probed once, removed as the
run ends, and after a killed run only a folder of its own shape.

What the sandbox lets through is tests/process/test_sandbox.py's; real sandboxes run in
tests/e2e/test_sandbox_*.py."""

from __future__ import annotations

import json
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from ralph.process.box import Sandbox
from ralph.process.containment import (
    SCRATCH_PREFIX,
    kept,
    prepare,
    probe,
    release,
    remove_left,
    scratch_folder,
)


def _box(profile: str, scratch: Path, tool: str = "/usr/bin/bwrap") -> Sandbox:
    return Sandbox(profile=profile, tool=tool, project=scratch.parent, scratch=scratch)  # type: ignore[arg-type]


def test_a_scratch_folder_is_private_and_named_to_be_found_again() -> None:
    folder = scratch_folder()
    try:
        assert folder.name.startswith(SCRATCH_PREFIX)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert folder.parent in {Path("/tmp"), Path(tempfile.gettempdir())}
    finally:
        folder.rmdir()


def test_a_killed_runs_sandbox_folder_is_removed() -> None:
    folder = scratch_folder()
    (folder / "tmp").mkdir()
    (folder / "tmp" / "left").write_text("x")
    assert remove_left(str(folder))
    assert not folder.exists()
    assert not remove_left(str(folder))  # already gone


def test_only_a_folder_of_the_sandboxs_shape_is_ever_removed(tmp_path: Path) -> None:
    victim = Path(tempfile.mkdtemp(prefix="precious-"))
    link = Path(tempfile.gettempdir()) / f"{SCRATCH_PREFIX}link-{victim.name}"
    link.symlink_to(victim)
    plain = Path(tempfile.mkstemp(prefix=SCRATCH_PREFIX)[1])
    try:
        for recorded in (
            None,
            7,
            "",
            str(victim),  # not the sandbox's name
            f"{SCRATCH_PREFIX}x",  # relative
            str(tmp_path / f"{SCRATCH_PREFIX}x"),  # not in the temporary folder
            f"{tempfile.gettempdir()}/{SCRATCH_PREFIX}x/../{victim.name}",
            str(link),  # a link, whatever its name
            str(plain),  # a file
        ):
            assert not remove_left(recorded), recorded
        assert victim.is_dir() and plain.exists()
    finally:
        link.unlink()
        plain.unlink()
        victim.rmdir()


def test_prepare_makes_the_folder_private_and_writes_srts_rules(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir(mode=0o755)
    prepare(_box("bwrap", scratch))
    assert (scratch / "tmp").is_dir() and stat.S_IMODE(scratch.stat().st_mode) == 0o700
    assert not (scratch / "srt-settings.json").exists()
    prepare(_box("srt", scratch))
    rules = json.loads((scratch / "srt-settings.json").read_text())
    assert "filesystem" in rules and "network" in rules


def test_the_folder_goes_when_the_block_ends_however_it_ends(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    (scratch / "tmp").mkdir(parents=True)
    with pytest.raises(KeyboardInterrupt), kept(_box("bwrap", scratch)):
        raise KeyboardInterrupt
    assert not scratch.exists()
    with kept(None):  # no sandbox: nothing to remove
        pass


def test_release_is_for_docker_alone(tmp_path: Path) -> None:
    release(None, "t")
    release(_box("bwrap", tmp_path, tool=str(tmp_path / "never-run")), "t")  # starts nothing


@pytest.mark.slow  # starts the probe
@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the sandbox tool")
def test_a_sandbox_that_cannot_run_says_its_last_line(tmp_path: Path) -> None:
    tool = tmp_path / "bwrap"
    said = "bwrap: No permissions to create a new namespace"
    tool.write_text(f"#!/bin/sh\necho 'noise' >&2\necho '{said}' >&2\nexit 1\n")
    tool.chmod(0o755)
    reason = probe(_box("bwrap", tmp_path / "scratch", tool=str(tool)), {"PATH": "/usr/bin:/bin"})
    assert reason == f"bwrap failed a test run: {said}"
    missing = _box("bwrap", tmp_path / "scratch", tool=str(tmp_path / "gone"))
    assert probe(missing, {}) is not None and "gone" in str(probe(missing, {}))
