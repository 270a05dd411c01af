"""store/environments/declared.py: the declaration read through the one reader; its digest covers
every
file read and every file a source names."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.store.environments.declared import read_declared, unread


def test_includes_are_read_and_part_of_the_digest(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-r more/dev.txt\n")
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "dev.txt").write_text("isodate\n")
    before = read_declared(tmp_path)
    assert before.declaration.requirements == ["isodate"]
    assert before.declaration.includes == ["requirements.txt", "more/dev.txt"]
    (tmp_path / "more" / "dev.txt").write_text("")  # emptied: a different declaration
    assert read_declared(tmp_path).digest != before.digest


def test_a_wheel_a_source_names_is_hashed(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-f wheels\n")
    (tmp_path / "wheels").mkdir()
    (tmp_path / "wheels" / "a-1-py3-none-any.whl").write_bytes(b"one")
    first = read_declared(tmp_path)
    assert "wheels/a-1-py3-none-any.whl sha256:" in first.sources_text()
    (tmp_path / "wheels" / "a-1-py3-none-any.whl").write_bytes(b"two")
    second = read_declared(tmp_path)
    assert second.digest != first.digest and second.sources_text() != first.sources_text()
    (tmp_path / "wheels" / "a-1-py3-none-any.whl").unlink()  # deleted: a change too
    assert read_declared(tmp_path).digest not in (first.digest, second.digest)


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
def test_an_include_that_is_a_pipe_declares_nothing_and_is_said(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "more.txt")
    (tmp_path / "requirements.txt").write_text("isodate\n-r more.txt\n")
    declared = read_declared(tmp_path)  # never blocks
    assert declared.declaration.requirements == ["isodate"]
    assert any(u.startswith("more.txt:") for u in declared.declaration.unread)


def test_a_cycle_of_includes_ends(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-r requirements.txt\nsix\n")
    assert read_declared(tmp_path).declaration.requirements == ["six"]


def test_settings_files_in_the_tree_are_sources(tmp_path: Path) -> None:
    (tmp_path / "uv.toml").write_text("cache-dir = '/elsewhere'\n")
    (tmp_path / "pip.conf").write_text("[global]\nindex-url = x\n")
    text = read_declared(tmp_path).sources_text()
    assert "uv.toml: package-manager settings in the tree" in text
    assert "pip.conf: package-manager settings in the tree" in text


def test_setup_py_alone_is_said_and_setup_cfg_is_read(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    assert any("setup.py" in line for line in unread(tmp_path))
    (tmp_path / "setup.cfg").write_text("[options]\ninstall_requires =\n    six\n")
    assert not any("setup.py" in line for line in unread(tmp_path))
    (tmp_path / "pyproject.toml").write_text("[project\n")
    assert any("pyproject.toml: not valid TOML" in line for line in unread(tmp_path))
