"""store/snapshots/ignore.py: which paths a snapshot leaves out: `.ralph/`, what a person's rules
leave
out (a folder's files stay out whatever a later pattern says), and tool output only when the
rules on disk now leave it out; an ignore file is read as git reads it, never through a link.

How snapshots use them is tests/store/snapshots/test_snapshotter.py's."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec
import pytest

from ralph.errors import StateError
from ralph.store.snapshots.ignore import RalphIgnore, WalkIgnore, is_scaffolding, load_ignore


def _spec(*lines: str) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(lines)


@pytest.mark.parametrize(
    "rel",
    ["node_modules/", "web/node_modules/x.js", "a/__pycache__/m.pyc", "m.pyc", "pkg.egg-info/"],
)
def test_tool_output_is_scaffolding(rel: str) -> None:
    assert is_scaffolding(rel)


@pytest.mark.parametrize("rel", ["src/app.py", "build.py", "targets/x", "README.md", "out.txt"])
def test_a_persons_files_are_not(rel: str) -> None:
    assert not is_scaffolding(rel)


def test_dot_ralph_is_always_left_out() -> None:
    ignore = RalphIgnore(None)
    assert ignore(".ralph", True) and ignore(".ralph/state.json", False)
    assert not ignore(".ralphignore", False) and not ignore("src/.ralph", True)


def test_a_file_in_an_ignored_folder_stays_ignored_as_in_git() -> None:
    ignore = RalphIgnore(_spec("scratch/", "!scratch/keep.txt"))
    assert ignore("scratch/keep.txt", False)
    assert ignore("scratch", True)
    assert not ignore("src/keep.txt", False)


def test_scaffolding_is_left_out_only_when_the_rules_on_disk_say_so() -> None:
    # the rules as a person set them do not mention it; the ones on disk now do (the agent's
    # `.ralphignore` line hides node_modules/, never its own source)
    now = _spec("node_modules/", "src/")
    ignore = RalphIgnore(None, now)
    assert ignore("node_modules", True)
    assert not ignore("src/app.py", False)  # not scaffolding: the rules at start decide
    assert not RalphIgnore(None, None)("node_modules", True)


def test_walk_mode_keeps_gitignore_and_ralphignore_apart(tmp_path: Path) -> None:
    # a `!pattern` in .ralphignore does not bring back what .gitignore leaves out
    ignore = WalkIgnore(tmp_path, [_spec("*.log"), _spec("!keep.log")])
    ignore.refresh()
    memo: dict[str, bool] = {}
    assert ignore.hit("keep.log", memo) and memo == {"keep.log": True}


def test_walk_mode_reads_the_rules_on_disk_again_when_they_change(tmp_path: Path) -> None:
    ignore = WalkIgnore(tmp_path, [None, None])
    ignore.refresh()
    assert not ignore.hit("dist/", {})
    (tmp_path / ".gitignore").write_text("dist/\n")
    ignore.refresh()
    assert ignore.hit("dist/", {})
    assert not ignore.hit("src/", {})


def test_an_ignore_file_is_read_as_git_reads_it(tmp_path: Path) -> None:
    path = tmp_path / ".ralphignore"
    assert load_ignore(path, strict=True) is None  # absent
    path.write_text("# only a comment\n\n")
    assert load_ignore(path, strict=True) is None
    path.write_text("*.tmp\nscratch/\n")
    spec = load_ignore(path, strict=True)
    assert spec is not None and spec.match_file("a.tmp") and spec.match_file("scratch/x")


def test_a_bad_line_is_an_error_naming_it_only_when_strict(tmp_path: Path) -> None:
    path = tmp_path / ".ralphignore"
    path.write_text("*.tmp\n!\n")
    with pytest.raises(StateError, match=r"\.ralphignore:2: invalid pattern"):
        load_ignore(path, strict=True)
    lax = load_ignore(path, strict=False)  # as git: the bad line skipped
    assert lax is not None and lax.match_file("a.tmp")


def test_an_ignore_file_that_is_a_link_or_not_utf8_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("*\n")
    (tmp_path / ".gitignore").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(StateError, match=r"\.gitignore: cannot read it"):
        load_ignore(tmp_path / ".gitignore", strict=True)
    assert load_ignore(tmp_path / ".gitignore", strict=False) is None
    (tmp_path / ".ralphignore").write_bytes(b"caf\xe9\n")
    with pytest.raises(StateError, match="cannot read it"):
        load_ignore(tmp_path / ".ralphignore", strict=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_for_an_ignore_file_is_never_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".ralphignore")
    assert load_ignore(tmp_path / ".ralphignore", strict=False) is None
