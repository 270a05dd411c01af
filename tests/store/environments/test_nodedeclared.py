"""store/environments/nodedeclared.py: a Node tree's declaration read through the one reader, keyed
by
everything that goes into a build, and what a run's start says of the project's node_modules."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ralph.store.environments.nodedeclared import read_node, start_notes

REG = "http://127.0.0.1:4873/"
PACKAGE = {"name": "calc", "version": "1.0.0", "dependencies": {"a": "^1"}}


def tree(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "tree"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            (root / name).write_bytes(text)
        else:
            (root / name).write_text(text)
    return root


def test_no_package_json_declares_nothing(tmp_path: Path) -> None:
    root = tree(tmp_path, {".npmrc": "registry=http://x/\n", "package-lock.json": "{}"})
    node = read_node(root, REG)
    assert node.read == () and node.sources_text() == ""


def test_the_digest_follows_the_lockfile_bytes_and_a_sources_files(tmp_path: Path) -> None:
    package = {**PACKAGE, "dependencies": {"a": "^1", "b": "file:vendor/b.tgz"}}
    root = tree(
        tmp_path,
        {
            "package.json": json.dumps(package),
            "package-lock.json": '{"lockfileVersion": 3, "packages": {}}',
            "vendor/b.tgz": b"one",
        },
    )
    first = read_node(root, REG)
    assert first.read == ("package.json", "package-lock.json")
    assert [p for p, _ in first.artifacts] == ["vendor/b.tgz"]
    assert "package.json: dependencies b = file:vendor/b.tgz\n    vendor/b.tgz sha256:" in (
        first.sources_text()
    )
    (root / "vendor/b.tgz").write_bytes(b"two")  # swapped after a build: another declaration
    swapped = read_node(root, REG)
    assert swapped.digest != first.digest
    (root / "vendor/b.tgz").write_bytes(b"one")
    (root / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {} }')
    assert read_node(root, REG).digest != first.digest
    (root / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {}}')
    assert read_node(root, REG).digest == first.digest


def test_an_npmrc_in_the_tree_is_a_source_and_the_shrinkwrap_wins(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "package.json": json.dumps(PACKAGE),
            "npm-shrinkwrap.json": '{"packages": {}}',
            "package-lock.json": '{"packages": {}}',
            ".npmrc": "registry=http://elsewhere/\n",
        },
    )
    node = read_node(root, REG)
    assert node.declaration.lockfile == "npm-shrinkwrap.json"
    assert node.sources_text().startswith(".npmrc: package-manager settings in the tree\n")


def test_a_lockfile_that_is_a_pipe_is_said_not_read(tmp_path: Path) -> None:
    root = tree(tmp_path, {"package.json": json.dumps(PACKAGE)})
    os.mkfifo(root / "package-lock.json")
    node = read_node(root, REG)
    assert node.declaration.unread and node.declaration.unread[0].startswith("package-lock.json")


def test_bad_json_is_said(tmp_path: Path) -> None:
    root = tree(tmp_path, {"package.json": "{", "package-lock.json": "nope"})
    unread = read_node(root, REG).declaration.unread
    assert [u.split(":")[0] for u in unread] == ["package.json", "package-lock.json"]


def test_the_start_says_when_node_modules_is_missing_or_older(tmp_path: Path) -> None:
    root = tree(tmp_path, {"package.json": json.dumps(PACKAGE), "package-lock.json": "{}"})
    assert start_notes(root, read_node(root, REG)) == [
        "node_modules is missing: the checks run with the environment as the run began; "
        "run npm ci first"
    ]
    (root / "node_modules").mkdir()
    (root / "node_modules/.package-lock.json").write_text("{}")
    os.utime(root / "node_modules/.package-lock.json", ns=(1, 1))
    assert start_notes(root, read_node(root, REG)) == [
        "node_modules is older than package-lock.json: the checks run with the environment as "
        "the run began; run npm ci first"
    ]
    os.utime(root / "package-lock.json", ns=(0, 0))
    assert start_notes(root, read_node(root, REG)) == []  # the control: up to date


def test_nothing_is_said_when_nothing_is_declared_and_another_lockfile_is_named(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {"package.json": json.dumps({"name": "x"}), "yarn.lock": ""})
    assert start_notes(root, read_node(root, REG)) == []
    (root / "package.json").write_text(json.dumps(PACKAGE))
    (root / "node_modules").mkdir()
    assert start_notes(root, read_node(root, REG)) == [
        "yarn.lock without package-lock.json: ralph builds node_modules with npm from "
        "package-lock.json only (run npm install to make one)"
    ]
