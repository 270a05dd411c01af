"""store/environments/npmsettings.py: the person's npm settings and registry as the run began,
never the
tree's; their cache."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ralph.store.environments.npmsettings import (
    npm_cache,
    person_npmrc,
    record_person_npm,
    registry,
)


def project(tmp_path: Path, package: bool = True) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    if package:
        (root / "package.json").write_text("{}")
    (root / ".npmrc").write_text("registry=http://agent/\n")  # the tree's: never read here
    return root


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_the_registry_the_persons_environment_names(tmp_path: Path) -> None:
    root = project(tmp_path)
    record_person_npm(root, {"npm_config_registry": "http://mine/", "HOME": str(tmp_path)})
    assert registry(root) == "http://mine/"
    assert person_npmrc(root) is None


def test_the_persons_npmrc_is_kept_privately_with_its_registry(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / ".npmrc").write_text("registry = http://home/\n//home/:_authToken=s\n")
    record_person_npm(root, {"HOME": str(tmp_path)})
    assert registry(root) == "http://home/"
    assert person_npmrc(root) == "registry = http://home/\n//home/:_authToken=s\n"
    kept = next((p for p in (tmp_path / "state").rglob("person-npmrc")), None)
    assert kept is not None and stat.S_IMODE(kept.stat().st_mode) == 0o600


def test_the_userconfig_the_environment_names_comes_first(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / "other").write_text("registry=http://other/\n")
    env = {"NPM_CONFIG_USERCONFIG": str(tmp_path / "other"), "HOME": str(tmp_path)}
    record_person_npm(root, env)
    assert registry(root) == "http://other/"


def test_without_package_json_nothing_is_kept(tmp_path: Path) -> None:
    root = project(tmp_path, package=False)
    record_person_npm(root, {"npm_config_registry": "http://mine/", "HOME": str(tmp_path)})
    assert registry(root) == "" and person_npmrc(root) is None


def test_the_cache_is_the_persons(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path)}
    assert npm_cache(home, None) == tmp_path / ".npm"
    assert npm_cache(home, "cache=/c/npm\n") == Path("/c/npm")
    assert npm_cache({**home, "npm_config_cache": "/e"}, "cache=/c\n") == Path("/e")
    assert npm_cache(home, "cache=${HOME}/x\n") == tmp_path / "x"
