"""store/environments/envbins.py: a declared package's command (a console script in the built
virtualenv,
a command of node_modules/.bin) never shadows one on PATH unless it is its own package's."""

from __future__ import annotations

from pathlib import Path

from ralph.store.environments.envbins import node_shadowing, venv_shadowing


def _venv(root: Path, scripts: dict[str, str]) -> Path:
    """A built virtualenv: `scripts` (command -> the distribution whose RECORD lists it)."""
    venv = root / "built" / ".venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    (venv / "bin").mkdir(parents=True)
    site.mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    (venv / "bin" / "activate").write_text("")
    records: dict[str, list[str]] = {}
    for name, dist in scripts.items():
        (venv / "bin" / name).write_text("#!/bin/sh\n")
        records.setdefault(dist, []).append(f"../../../bin/{name},sha256=x,1")
    for dist, lines in records.items():
        info = site / f"{dist}-1.0.dist-info"
        info.mkdir()
        (info / "RECORD").write_text("\n".join(lines) + "\n")
    return venv


def _path(root: Path, *names: str) -> dict[str, str]:
    on_path = root / "system-bin"
    on_path.mkdir(exist_ok=True)
    for name in names:
        (on_path / name).write_text("#!/bin/sh\n")
        (on_path / name).chmod(0o755)
    return {"PATH": str(on_path)}


def test_a_package_whose_command_shadows_make_is_refused(tmp_path: Path) -> None:
    venv = _venv(tmp_path, {"make": "calcfix", "calcfix": "calcfix"})
    why = venv_shadowing(venv, None, _path(tmp_path, "make"))
    assert why is not None and "bin/make (from calcfix)" in why


def test_its_own_command_and_a_new_one_are_not(tmp_path: Path) -> None:
    # controls: pytest's `pytest` (its own name), a command nothing else provides, python
    venv = _venv(tmp_path, {"pytest": "pytest", "py.test": "pytest", "isodate-cli": "isodate"})
    assert venv_shadowing(venv, None, _path(tmp_path, "pytest", "python")) is None


def test_a_command_the_start_had_is_not_new(tmp_path: Path) -> None:
    venv = _venv(tmp_path, {"make": "calcfix"})
    start = tmp_path / "start" / ".venv"
    (start / "bin").mkdir(parents=True)
    (start / "bin" / "make").write_text("")
    assert venv_shadowing(venv, start, _path(tmp_path, "make")) is None


def test_a_new_node_command_named_like_one_on_path_is_refused(tmp_path: Path) -> None:
    modules, start, bin_ = tmp_path / "nm", tmp_path / "start", tmp_path / "bin"
    for folder in (modules / ".bin", start / ".bin", bin_):
        folder.mkdir(parents=True)
    for name in ("node", "sh", "tape"):
        (bin_ / name).write_text("")
        (bin_ / name).chmod(0o755)
    env = {"PATH": str(bin_)}
    (modules / ".bin" / "tape").symlink_to("../tape/bin/tape")  # its own name: the control
    (modules / ".bin" / "sh").symlink_to("../sh-helper/x.js")
    (start / ".bin" / "sh").symlink_to("../sh-helper/x.js")  # the person's, from the start
    assert node_shadowing(modules, start, env) is None
    (modules / ".bin" / "node").symlink_to("../@evil/pkg/fake.sh")
    why = node_shadowing(modules, start, env)
    assert why is not None and why.startswith(
        "a declared package's command shadows one on PATH: node_modules/.bin/node (from @evil/pkg)"
    )
    assert node_shadowing(modules, start, {"PATH": str(tmp_path / "none")}) is None
