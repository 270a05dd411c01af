"""commands/sandboxing.py: the sandbox of one `ralph run`: its rules from `sandbox:` and the
pool, probed once; one that cannot start stops the run in one line, never a fall back to
running unsandboxed.

Real sandboxes around real agents are tests/e2e/test_sandbox_*.py's."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from ralph.commands.sandboxing import NAMESPACE_HINT, SECRETS, start_sandbox
from ralph.errors import SandboxError
from ralph.store.disk.private import stores_root
from ralph.store.person.config import SandboxConfig

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the tool")


def _tool(bin_dir: Path, name: str, script: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / name).write_text(f"#!/bin/sh\n{script}\n")
    (bin_dir / name).chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only the sandbox tools a test puts there."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_off_is_no_sandbox(tmp_path: Path) -> None:
    assert start_sandbox(tmp_path, None, SandboxConfig(), []) is None
    assert start_sandbox(tmp_path, "off", SandboxConfig(profile="bwrap"), []) is None


def test_an_unknown_profile_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="--sandbox chroot: unknown profile"):
        start_sandbox(tmp_path, "chroot", SandboxConfig(), [])


def test_a_missing_tool_stops_the_run_and_says_what_to_install(
    tmp_path: Path, bin_dir: Path
) -> None:
    with pytest.raises(SandboxError, match="sandbox auto cannot start: srt not found") as caught:
        start_sandbox(tmp_path, "auto", SandboxConfig(), [])
    assert "sandbox-runtime" in (caught.value.hint or "")


@posix_only
def test_docker_without_an_image_is_refused(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "docker", "exit 0")
    with pytest.raises(SandboxError, match="no image"):
        start_sandbox(tmp_path, "docker", SandboxConfig(), [])


@posix_only
@pytest.mark.parametrize(
    ("config", "said"),
    [
        (SandboxConfig(deny_read=[".."]), "holds the project"),
        (SandboxConfig(allow_write=["no-such-folder"]), "allow_write: .* does not exist"),
    ],
)
def test_rules_that_cannot_hold_are_refused(
    tmp_path: Path, bin_dir: Path, config: SandboxConfig, said: str
) -> None:
    _tool(bin_dir, "bwrap", "exit 0")
    project = tmp_path / "p"
    project.mkdir()
    with pytest.raises(SandboxError, match=said):
        start_sandbox(project, "bwrap", config, [])


@pytest.mark.slow  # probes the tool
@posix_only
def test_a_tool_that_fails_its_probe_stops_the_run(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "bwrap", "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1")
    with pytest.raises(SandboxError, match="uid map") as caught:
        start_sandbox(tmp_path, "bwrap", SandboxConfig(), [])
    assert caught.value.hint == NAMESPACE_HINT


@pytest.mark.slow  # probes the tool
@posix_only
def test_a_sandbox_hides_the_secrets_and_every_store_and_keeps_gits_programs_read_only(
    tmp_path: Path, bin_dir: Path
) -> None:
    _tool(bin_dir, "bwrap", "exit 0")
    home = Path.home()
    (home / ".ssh").mkdir()
    (home / ".netrc").write_text("machine x password y\n")
    project = tmp_path / "p"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("")
    config = SandboxConfig(allow_hosts=["pypi.org"], allow_write=["../cache"])
    (tmp_path / "cache").mkdir()
    box = start_sandbox(project, "bwrap", config, [])
    assert box is not None and box.tool == str(bin_dir / "bwrap")
    assert home / ".ssh" in box.deny_read and stores_root() in box.deny_read
    assert home / ".netrc" in box.deny_files
    assert len(SECRETS) >= len(box.deny_read) - 1  # only those that exist
    assert box.read_only == (project / ".git" / "config", project / ".git" / "hooks")
    assert box.hosts == ("pypi.org",) and box.writable == (tmp_path / "cache",)
    assert box.scratch.is_dir()
    shutil.rmtree(box.scratch)
