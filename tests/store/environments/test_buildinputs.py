"""store/environments/buildinputs.py: uv installs from files ralph wrote in the build's folder:
names as
declared, an accepted source's files copied there; a folder to build is refused."""

from __future__ import annotations

from pathlib import Path

from ralph.store.environments.buildinputs import build_inputs
from ralph.store.environments.declared import read_declared


def test_names_are_written_and_a_wheelhouse_is_copied(tmp_path: Path) -> None:
    tree, folder = tmp_path / "tree", tmp_path / "input"
    tree.mkdir()
    folder.mkdir()
    (tree / "wheels").mkdir()
    (tree / "wheels" / "a-1-py3-none-any.whl").write_bytes(b"wheel")
    (tree / "requirements.txt").write_text("--pre\nisodate\n-f wheels\n-c c.txt\n")
    (tree / "c.txt").write_text("isodate<1\n")
    args = build_inputs(tree, read_declared(tree), folder)
    assert args == ["-c", str(folder / "constraints.txt"), "-r", str(folder / "requirements.txt")]
    written = (folder / "requirements.txt").read_text().splitlines()
    assert written == ["--pre", "isodate", f"--find-links {folder / 'files' / 'wheels'}"]
    assert (folder / "constraints.txt").read_text() == "isodate<1\n"
    assert (folder / "files" / "wheels" / "a-1-py3-none-any.whl").read_bytes() == b"wheel"


def test_a_wheel_by_path_is_installed_from_its_copy(tmp_path: Path) -> None:
    tree, folder = tmp_path / "tree", tmp_path / "input"
    tree.mkdir()
    folder.mkdir()
    (tree / "x-1-py3-none-any.whl").write_bytes(b"w")
    (tree / "requirements.txt").write_text(
        "./x-1-py3-none-any.whl\nfix @ file:./x-1-py3-none-any.whl\n"
    )
    build_inputs(tree, read_declared(tree), folder)
    copy = folder / "files" / "x-1-py3-none-any.whl"
    assert (folder / "requirements.txt").read_text().splitlines() == [
        str(copy),
        f"fix @ file://{copy}",
    ]


def test_a_folder_to_build_is_refused_and_nothing_to_install_is_none(tmp_path: Path) -> None:
    tree, folder = tmp_path / "tree", tmp_path / "input"
    (tree / "pkg").mkdir(parents=True)
    folder.mkdir()
    (tree / "requirements.txt").write_text("./pkg\n")
    why = build_inputs(tree, read_declared(tree), folder)
    assert isinstance(why, str) and "ralph installs wheels only" in why
    (tree / "requirements.txt").write_text("-e .\n")  # the project itself: nothing to install
    assert build_inputs(tree, read_declared(tree), folder) == []
