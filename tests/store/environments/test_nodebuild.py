"""store/environments/nodebuild.py: what ralph says instead of building node_modules, before npm
starts
(npm's own runs are tests/e2e/test_node_environment.py), and what a run's start records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.process.launcher import PLAIN
from ralph.store.environments.envcopy import START_NODE, start_envs
from ralph.store.environments.installer import INPUT
from ralph.store.environments.nodebuild import build_node, record_node_start
from ralph.store.environments.nodedeclared import read_node

REG = "http://127.0.0.1:4873/"


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def setup(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path, dict[str, str]]:
    tree, target, bin_ = tmp_path / "tree", tmp_path / "target", tmp_path / "bin"
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    (target / INPUT).mkdir(parents=True)
    bin_.mkdir()
    (bin_ / "npm").write_text("#!/bin/sh\nexit 9\n")  # never started by these
    (bin_ / "npm").chmod(0o755)
    return tree, target, {"PATH": str(bin_), "HOME": str(tmp_path)}


def build(tmp_path: Path, files: dict[str, str], env: dict[str, str] | None = None) -> str | None:
    tree, target, path = setup(tmp_path, files)
    return build_node(tree, tree, read_node(tree, REG), target, env or path, PLAIN)


PACKAGE = json.dumps({"name": "x", "dependencies": {"a": "^1"}})


def test_without_npm_it_says_so(tmp_path: Path) -> None:
    why = build(tmp_path, {"package.json": PACKAGE}, {"PATH": str(tmp_path / "none")})
    assert why is not None and why.startswith("npm is not installed")


def test_without_a_lockfile_it_says_to_make_one(tmp_path: Path) -> None:
    why = build(tmp_path, {"package.json": PACKAGE})
    assert why is not None and "no package-lock.json" in why and "npm install" in why


def test_a_folder_source_is_never_built(tmp_path: Path) -> None:
    package = json.dumps({"name": "x", "dependencies": {"a": "file:pkgs/a"}})
    files = {"package.json": package, "package-lock.json": "{}", "pkgs/a/index.js": ""}
    why = build(tmp_path, files)
    assert why == (
        "package.json: dependencies a = file:pkgs/a: a folder; ralph builds node_modules from "
        "the registry and tarballs only"
    )


def test_the_start_records_what_node_modules_was_made_for(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "package.json").write_text(PACKAGE)
    env = {"npm_config_registry": REG, "HOME": str(tmp_path)}
    notes = record_node_start(project, env, keep=False)
    assert notes and notes[0].startswith("node_modules is missing")
    recorded = (start_envs(project) / START_NODE).read_text()
    assert recorded == read_node(project, REG).digest
    (project / "package.json").write_text(json.dumps({"name": "x"}))
    record_node_start(project, env, keep=True)  # the last run was killed: what it recorded stays
    assert (start_envs(project) / START_NODE).read_text() == recorded
    assert record_node_start(project, env, keep=False) == []
    assert (start_envs(project) / START_NODE).read_text() != recorded
