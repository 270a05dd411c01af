"""The ignore rules a person set (store/snapshots/ignorebase.py): what counts as scaffolding, which
rule
changes wait for a person, how nested rules read, and accepting them; with and without git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.snapshots import ignorebase
from ralph.store.snapshots.ignorebase import BaselineMatcher, rule_changes, scaffolding_pattern
from ralph.store.snapshots.snapshotter import Snapshotter


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@t")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def project(tmp_path: Path, files: dict[str, str], *, repo: bool = True) -> Path:
    root = tmp_path / "p"
    (root / ".ralph").mkdir(parents=True)
    ensure_store(root)  # a project ralph works in: a run has held it
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    if repo:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "init")
    return root


@pytest.mark.parametrize(
    "pattern",
    ["node_modules/", "/dist", "**/__pycache__", "*.pyc", ".venv", "web/node_modules/", "target/"],
)
def test_scaffolding_patterns(pattern: str) -> None:
    assert scaffolding_pattern(pattern)


@pytest.mark.parametrize(
    "pattern", ["*.py", "src/", "app.py", "*", "**/*.py", "build/*.py", "node_modules/../src", "?"]
)
def test_patterns_that_can_hide_source_files(pattern: str) -> None:
    assert not scaffolding_pattern(pattern)


def test_which_rule_changes_wait_for_a_person() -> None:
    before = {".gitignore": "build/\n!build/keep.py\n"}
    assert rule_changes(before, before) == []
    assert rule_changes(before, {".gitignore": "build/\n!build/keep.py\nnode_modules/\n"}) == []
    assert rule_changes(before, {".gitignore": "build/\n!build/keep.py\n# a comment\n"}) == []
    added = rule_changes(before, {".gitignore": "build/\n!build/keep.py\n*.py\n"})
    assert added == [".gitignore: `*.py` was added (it can hide source files)"]
    removed = rule_changes(before, {".gitignore": "build/\n"})
    assert removed == [".gitignore: `!build/keep.py` was removed (it can hide source files)"]
    # the same lines in another order: `build/` now wins over the negation
    assert rule_changes(before, {".gitignore": "!build/keep.py\nbuild/\n"})
    assert rule_changes({}, {"src/.gitignore": "*\n"}) == [
        "src/.gitignore: `*` was added (it can hide source files)"
    ]


def test_nested_rules_apply_to_their_folder_only() -> None:
    match = BaselineMatcher({"src/.gitignore": "*.gen\n/local\n", ".gitignore": "*.log\n"})
    assert match("src/a/b.gen")
    assert not match("b.gen")
    assert match("src/local")
    assert not match("src/a/local")
    assert match("x.log") and match("src/x.log")
    # a deeper file's negation wins over the top level's rule, as in git
    match = BaselineMatcher({".gitignore": "*.log\n", "src/.gitignore": "!keep.log\n"})
    assert match("src/other.log") and not match("src/keep.log")


def test_accepting_the_rules_records_them_as_the_persons(tmp_path: Path) -> None:
    root = project(tmp_path, {".gitignore": ".ralph/\n", "app.py": "x\n"})
    assert ignorebase.baseline(root) == {".gitignore": ".ralph/\n"}
    assert (store_dir(root) / ignorebase.RULES_FILE).exists()
    assert ignorebase.pending_ignore_changes(root) == []
    (root / ".git/info/exclude").write_text("# comment\napp.py\n")
    (root / "lib").mkdir()
    (root / "lib/.gitignore").write_text("*\n")
    pending = ignorebase.pending_ignore_changes(root)
    assert [line.split(":")[0] for line in pending] == [".git/info/exclude", "lib/.gitignore"]
    stale = ignorebase.rules_key({".gitignore": ".ralph/\n"})
    assert not ignorebase.accept_ignore_rules(root, stale)  # not what was shown: nothing done
    assert ignorebase.pending_ignore_changes(root)
    shown = ignorebase.rules_key(ignorebase.current_rules(root))
    assert ignorebase.accept_ignore_rules(root, shown)
    assert ignorebase.pending_ignore_changes(root) == []


def test_the_excludes_file_of_git_config_is_a_rule(tmp_path: Path) -> None:
    root = project(tmp_path, {".gitignore": ".ralph/\n"})
    ignorebase.baseline(root)
    excludes = tmp_path / "my-excludes"
    excludes.write_text("*.py\n")
    git(root, "config", "core.excludesFile", str(excludes))
    assert ignorebase.pending_ignore_changes(root) == [
        "core.excludesFile: `*.py` was added (it can hide source files)"
    ]


def test_without_git_a_new_rule_hides_nothing_but_scaffolding(tmp_path: Path) -> None:
    root = project(tmp_path, {"app.py": "x\n"}, repo=False)
    snap = Snapshotter(root)
    assert snap.kind == "walk"
    before = snap.take()
    (root / ".gitignore").write_text("*.py\nnode_modules/\n")
    (root / "app.py").write_text("y\n")
    (root / "node_modules/p").mkdir(parents=True)
    (root / "node_modules/p/i.js").write_text("z\n")
    after = snap.take()
    assert snap.diff(before, after).paths == (".gitignore", "app.py")
    assert snap.pending_rules() == [".gitignore: `*.py` was added (it can hide source files)"]
    # a later Snapshotter (the next run) still compares by the person's rules
    again = Snapshotter(root)
    (root / "app.py").write_text("w\n")
    assert "app.py" in again.diff(after, again.take()).paths


@pytest.mark.parametrize(
    "pattern", [".aider*", "/.aider*", ".aider*/", ".claude/", "/.gemini", ".cursor", ".opencode/"]
)
def test_an_agent_own_ignore_rule_waits_for_no_person(pattern: str) -> None:
    assert scaffolding_pattern(pattern)
    assert rule_changes({".gitignore": ".ralph/\n"}, {".gitignore": f".ralph/\n{pattern}\n"}) == []


@pytest.mark.parametrize("pattern", ["src/.aider*", ".a*", ".*", "*aider*", ".claude/../src"])
def test_a_rule_beyond_the_agent_files_still_waits(pattern: str) -> None:
    assert not scaffolding_pattern(pattern)
    assert rule_changes({}, {".gitignore": f"{pattern}\n"}) != []
