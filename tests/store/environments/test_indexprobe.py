"""store/environments/indexprobe.py: `ralph doctor` asks the package index when the tree declares
dependencies: it answers, it cannot be reached (said), or nothing is declared (not asked)."""

from __future__ import annotations

import socket
import zipfile
from pathlib import Path

import pytest

from ralph.store.environments.indexprobe import probe_index


def _wheel(folder: Path) -> None:
    info = "tinydep-1.0.dist-info"
    files = {
        "tinydep/__init__.py": "",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/RECORD": "",
    }
    with zipfile.ZipFile(folder / "tinydep-1.0-py3-none-any.whl", "w") as z:
        for name, text in files.items():
            z.writestr(name, text)


def test_nothing_declared_asks_nothing(tmp_path: Path) -> None:
    assert probe_index(tmp_path, {"HOME": str(tmp_path)}) is None


@pytest.mark.slow  # starts uv
def test_the_index_answers_or_cannot_be_reached(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("tinydep\n")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels)
    base = {"HOME": str(tmp_path), "UV_CACHE_DIR": str(tmp_path / "cache")}
    config = tmp_path / "config"
    (config / "uv").mkdir(parents=True)
    (config / "uv" / "uv.toml").write_text(f"no-index = true\nfind-links = [{str(wheels)!r}]\n")
    found = probe_index(tmp_path, {**base, "XDG_CONFIG_HOME": str(config)})
    assert found is not None and found.ok, found
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = {**base, "UV_INDEX_URL": f"http://127.0.0.1:{port}/simple", "UV_HTTP_TIMEOUT": "5"}
    found = probe_index(tmp_path, down)
    assert found is not None and not found.ok
    assert found.detail.startswith("the package index cannot be reached"), found


@pytest.mark.slow  # starts uv
def test_a_folder_of_wheels_the_settings_name_that_is_not_there_is_not_ready(
    tmp_path: Path,
) -> None:
    """uv's "Failed to read `--find-links` directory" is not an index that answers."""
    (tmp_path / "requirements.txt").write_text("tinydep\n")
    config = tmp_path / "config"
    (config / "uv").mkdir(parents=True)
    gone = tmp_path / "wheels-moved"
    (config / "uv" / "uv.toml").write_text(f"no-index = true\nfind-links = [{str(gone)!r}]\n")
    env = {"HOME": str(tmp_path), "UV_CACHE_DIR": str(tmp_path / "cache")}
    found = probe_index(tmp_path, {**env, "XDG_CONFIG_HOME": str(config)})
    assert found is not None and not found.ok, found
    assert found.detail.startswith("the package index cannot be reached"), found
    assert "wheels-moved" in found.detail
