"""store/snapshots/snapshotter.py: snapshots taken of real files and real git: what counts as a
change,
and what must not.

A snapshot as a value (its JSON, the diff of two) is tests/store/snapshots/test_snapshot.py's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph.errors import StateError
from ralph.store.snapshots.fingerprint import DELETED
from ralph.store.snapshots.snapshot import Snapshot
from ralph.store.snapshots.snapshotter import Snapshotter

ZERO = "0" * 40
A, B, C = "a" * 40, "b" * 40, "c" * 40
SAMPLE = {
    "README.md": "hello\n",
    "src/app.py": "print(1)\n",
    "specs/a.spec.md": "# spec\n",
    ".gitignore": "node_modules/\n*.log\n",
    ".ralphignore": "scratch/\n*.tmp\n",
}


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's git config (hooks, signing, status settings) must not leak into tests,
    # and walk-mode projects must not be found inside whatever repo holds the temp folder.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@t")


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def git_fails(cwd: Path, *args: str) -> bool:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False).returncode != 0


def init_repo(root: Path, *extra: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main", *extra)


def commit_all(root: Path, message: str = "c") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def make_project(root: Path, kind: str, files: dict[str, str] | None = None) -> Path:
    for name, text in (SAMPLE if files is None else files).items():
        write(root / name, text)
    if kind == "git":
        init_repo(root)
        commit_all(root)
    return root


@pytest.fixture(params=["git", "walk"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", request.param)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj", "git")


def changed_since(snapper: Snapshotter, before: Snapshot) -> tuple[str, ...]:
    return snapper.diff(before, snapper.take()).paths


# -- both modes ------------------------------------------------------------------------------


def test_mode_follows_git(project: Path) -> None:
    expected = "git" if (project / ".git").exists() else "walk"
    snapper = Snapshotter(project)
    snap = snapper.take()
    assert snapper.kind == snap.kind == expected
    assert (snap.head is None) == (expected == "walk")


def test_no_change_is_empty(project: Path) -> None:
    snapper = Snapshotter(project)
    changes = snapper.diff(snapper.take(), snapper.take())
    assert not changes
    assert len(changes) == 0
    assert changes.paths == ()


def test_content_change_of_a_tracked_file(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "src/app.py", "print(2)\n")
    changes = snapper.diff(before, snapper.take())
    assert changes
    assert changes.paths == ("src/app.py",)
    assert len(changes) == 1


def test_same_size_change_is_seen(project: Path) -> None:
    # Same size, and the mtime put back: only the content (or ctime) tells.
    snapper = Snapshotter(project)
    snapper.racy_window_ns = 0
    path = project / "src/app.py"
    st = path.stat()
    snapper.take()
    before = snapper.take()
    write(path, "print(3)\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert changed_since(snapper, before) == ("src/app.py",)


def test_new_file(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "src/new module.py", "x = 1\n")
    assert changed_since(snapper, before) == ("src/new module.py",)


def test_deleted_file(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    (project / "specs/a.spec.md").unlink()
    assert changed_since(snapper, before) == ("specs/a.spec.md",)


def test_spec_files_are_tracked_like_any_other(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "specs/a.spec.md", "# spec, edited by the agent\n")
    write(project / "specs/b.spec.md", "# new spec\n")
    assert changed_since(snapper, before) == ("specs/a.spec.md", "specs/b.spec.md")


def test_gitignored_files_do_not_count(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "node_modules/x.js", "module.exports = 1\n")
    write(project / "node_modules/deep/y.js", "y\n")
    write(project / "debug.log", "log\n")
    assert changed_since(snapper, before) == ()


def test_ralphignored_files_do_not_count(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "scratch/notes.md", "notes\n")
    write(project / "src/cache.tmp", "tmp\n")
    write(project / "src/kept.txt", "kept\n")
    assert changed_since(snapper, before) == ("src/kept.txt",)


def test_ralph_folder_never_counts(project: Path) -> None:
    assert ".ralph" not in (project / ".gitignore").read_text()
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / ".ralph/state.json", "{}\n")
    write(project / ".ralph/logs/1.log", "x\n")
    write(project / ".ralph/nested/deeper/file.txt", "x\n")
    assert changed_since(snapper, before) == ()
    # Only the root's .ralph is special.
    write(project / "src/.ralph/file.txt", "x\n")
    assert changed_since(snapper, before) == ("src/.ralph/file.txt",)


def test_touch_without_content_change(project: Path) -> None:
    snapper = Snapshotter(project)
    before = snapper.take()
    future = time.time_ns() + 5_000_000_000
    for name in ("README.md", "src/app.py"):
        os.utime(project / name, ns=(future, future))
    assert changed_since(snapper, before) == ()


def test_restored_snapshot_in_a_fresh_snapshotter(project: Path) -> None:
    saved = Snapshot.from_json(Snapshotter(project).take().to_json())
    assert changed_since(Snapshotter(project), saved) == ()
    write(project / "README.md", "edited while ralph was not running\n")
    (project / "src/app.py").unlink()
    assert changed_since(Snapshotter(project), saved) == ("README.md", "src/app.py")


def test_symlink_target_is_the_content(project: Path) -> None:
    if sys.platform == "win32":
        pytest.skip("symlinks need privileges on Windows")
    link = project / "link"
    link.symlink_to("README.md")
    snapper = Snapshotter(project)
    before = snapper.take()
    link.unlink()
    link.symlink_to("src/app.py")
    assert changed_since(snapper, before) == ("link",)
    # A dangling link is still a file git tracks.
    before = snapper.take()
    link.unlink()
    link.symlink_to("missing")
    assert changed_since(snapper, before) == ("link",)


def test_stat_cache_avoids_rehashing(project: Path) -> None:
    snapper = Snapshotter(project)
    snapper.racy_window_ns = 0
    write(project / "README.md", "dirty\n")
    write(project / "new.txt", "new\n")
    first = snapper.take()
    assert snapper.hashed_files > 0
    second = snapper.take()
    assert snapper.hashed_files == 0
    assert second == first
    write(project / "new.txt", "newer\n")
    snapper.take()
    assert snapper.hashed_files == 1


def test_young_files_are_rehashed(project: Path) -> None:
    # A file written just now may be written again within the same timestamp tick.
    snapper = Snapshotter(project)
    write(project / "new.txt", "new\n")
    snapper.take()
    snap = snapper.take()
    assert "new.txt" in snap.entries
    assert snapper.hashed_files == len(snap.entries)  # every file of the fixture is young


def test_large_file_hash_matches_git(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", "git")
    big = write(root / "big.bin", os.urandom(3 * 1024 * 1024 + 7))
    snap = Snapshotter(root).take()
    assert snap.entries["big.bin"] == git(root, "hash-object", "big.bin")
    walk_root = make_project(tmp_path / "walk", "walk", {"big.bin": ""})
    write(walk_root / "big.bin", big.read_bytes())
    assert Snapshotter(walk_root).take().entries["big.bin"] == snap.entries["big.bin"]


def test_unreadable_ralphignore_pattern_is_a_state_error(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", "walk", {".ralphignore": "ok/\n!\n"})
    with pytest.raises(StateError) as info:
        Snapshotter(root)
    assert ".ralphignore:2" in info.value.message
    assert info.value.hint


def test_missing_root_is_a_state_error(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="not found"):
        Snapshotter(tmp_path / "nope")


def test_snapshot_kind_change_counts_as_changed(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", "walk")
    walk = Snapshotter(root).take()
    init_repo(root)
    commit_all(root)
    snapper = Snapshotter(root)
    assert snapper.kind == "git"
    changes = snapper.diff(walk, snapper.take())
    assert changes
    assert changes.paths[0].startswith("(")


# -- git mode --------------------------------------------------------------------------------


def test_git_snapshot_lists_only_dirty_paths(repo: Path) -> None:
    snapper = Snapshotter(repo)
    assert snapper.take().entries == {}
    write(repo / "README.md", "dirty\n")
    snap = snapper.take()
    assert snap.entries == {"README.md": git(repo, "hash-object", "README.md")}
    assert snap.head == git(repo, "rev-parse", "HEAD")


def test_agent_commits_its_change(repo: Path) -> None:
    snapper = Snapshotter(repo)
    before = snapper.take()
    write(repo / "src/app.py", "print('committed')\n")
    write(repo / "src/added.py", "added\n")
    commit_all(repo)
    after = snapper.take()
    assert after.entries == {}
    assert after.head != before.head
    assert snapper.diff(before, after).paths == ("src/added.py", "src/app.py")


def test_agent_commits_a_deletion(repo: Path) -> None:
    snapper = Snapshotter(repo)
    before = snapper.take()
    git(repo, "rm", "-q", "README.md")
    commit_all(repo)
    assert changed_since(snapper, before) == ("README.md",)


def test_dirty_file_committed_unchanged_is_no_change(repo: Path) -> None:
    write(repo / "README.md", "user's uncommitted edit\n")
    write(repo / "untracked.txt", "user's new file\n")
    (repo / "src/app.py").unlink()
    snapper = Snapshotter(repo)
    before = snapper.take()
    assert set(before.entries) == {"README.md", "untracked.txt", "src/app.py"}
    assert before.entries["src/app.py"] == DELETED
    commit_all(repo, "agent commits the user's work as is")
    after = snapper.take()
    assert after.entries == {}
    assert snapper.diff(before, after).paths == ()
    # ...but the same commit with one more edit shows exactly that edit.
    before = snapper.take()
    write(repo / "README.md", "edited again\n")
    write(repo / "specs/a.spec.md", "# edited\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "partial")
    assert changed_since(snapper, before) == ("README.md", "specs/a.spec.md")


def test_reverting_a_dirty_file_is_a_change(repo: Path) -> None:
    write(repo / "README.md", "user's edit\n")
    snapper = Snapshotter(repo)
    before = snapper.take()
    git(repo, "checkout", "-q", "--", "README.md")
    assert changed_since(snapper, before) == ("README.md",)


def test_reverting_then_committing_elsewhere_is_a_change(repo: Path) -> None:
    write(repo / "README.md", "user's edit\n")
    snapper = Snapshotter(repo)
    before = snapper.take()
    git(repo, "checkout", "-q", "--", "README.md")
    write(repo / "src/app.py", "print(9)\n")
    commit_all(repo)
    assert changed_since(snapper, before) == ("README.md", "src/app.py")


def test_rename_reports_both_paths(repo: Path) -> None:
    snapper = Snapshotter(repo)
    before = snapper.take()
    git(repo, "mv", "src/app.py", "src/main.py")
    after = snapper.take()
    assert set(after.entries) == {"src/app.py", "src/main.py"}
    assert snapper.diff(before, after).paths == ("src/app.py", "src/main.py")
    commit_all(repo)
    assert changed_since(snapper, before) == ("src/app.py", "src/main.py")


def test_first_commit(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    init_repo(root)
    write(root / "a.txt", "a\n")
    snapper = Snapshotter(root)
    before = snapper.take()
    assert before.head == ""
    assert set(before.entries) == {"a.txt"}
    write(root / "b.txt", "b\n")
    commit_all(root)
    after = snapper.take()
    assert after.head
    assert snapper.diff(before, after).paths == ("b.txt",)


def test_unborn_branch_after_commits(repo: Path) -> None:
    snapper = Snapshotter(repo)
    before = snapper.take()
    git(repo, "checkout", "-q", "--orphan", "fresh")
    git(repo, "rm", "-q", "--cached", "-r", ".")
    after = snapper.take()
    assert after.head == ""
    # Every file is now untracked, with the same content: nothing changed on disk.
    assert snapper.diff(before, after).paths == ()


def test_history_rewritten(repo: Path) -> None:
    snapper = Snapshotter(repo)
    write(repo / "README.md", "v2\n")
    commit_all(repo)
    before = snapper.take()
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    after = snapper.take()
    assert before.head
    assert after.head
    assert after.head != before.head
    assert git_fails(repo, "cat-file", "-e", before.head)
    changes = snapper.diff(before, after)
    assert changes.paths == (f"(HEAD moved: {before.head[:7]}..{after.head[:7]})",)


def test_invalid_head_is_not_passed_to_git(repo: Path, tmp_path: Path) -> None:
    snapper = Snapshotter(repo)
    after = snapper.take()
    leak = tmp_path / "leak"
    forged = Snapshot(kind="git", head=f"--output={leak}", entries={})
    assert snapper.diff(forged, after)
    assert not leak.exists()


def test_project_in_a_subdirectory(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    write(top / "outside.txt", "o\n")
    write(top / "app/inside.txt", "i\n")
    write(top / "app/.ralphignore", "ignored.txt\n")
    write(top / "app/.ralph/state.json", "{}\n")
    init_repo(top)
    commit_all(top)
    root = top / "app"
    snapper = Snapshotter(root)
    before = snapper.take()
    write(top / "outside.txt", "changed outside\n")
    write(top / "other/new.txt", "new outside\n")
    write(root / ".ralph/state.json", '{"x": 1}\n')
    write(root / "ignored.txt", "x\n")
    assert changed_since(snapper, before) == ()
    write(root / "inside.txt", "changed inside\n")
    write(root / "sub/new.txt", "new inside\n")
    after = snapper.take()
    assert set(after.entries) == {"inside.txt", "sub/new.txt"}
    assert snapper.diff(before, after).paths == ("inside.txt", "sub/new.txt")
    # Commits touching only files outside the project do not count either.
    before = snapper.take()
    git(top, "add", "outside.txt", "other")
    git(top, "commit", "-q", "-m", "outside only")
    assert changed_since(snapper, before) == ()
    commit_all(top)
    assert changed_since(snapper, before) == ()
    write(root / "inside.txt", "committed inside\n")
    write(root / "ignored.txt", "committed but ralph-ignored\n")
    commit_all(top)
    assert changed_since(snapper, before) == ("inside.txt",)


def test_rename_from_outside_the_project(tmp_path: Path) -> None:
    top = make_project(tmp_path / "repo", "git", {"top.txt": "t\n", "app/a.txt": "a\n"})
    snapper = Snapshotter(top / "app")
    before = snapper.take()
    git(top, "mv", "top.txt", "app/moved.txt")
    assert changed_since(snapper, before) == ("moved.txt",)


def test_project_inside_an_ignored_folder_is_walked(tmp_path: Path) -> None:
    top = make_project(tmp_path / "repo", "git", {".gitignore": "vendor/\n"})
    root = top / "vendor/lib"
    write(root / "a.txt", "a\n")
    snapper = Snapshotter(root)
    assert snapper.kind == "walk"
    before = snapper.take()
    write(root / "a.txt", "b\n")
    assert changed_since(snapper, before) == ("a.txt",)


def test_odd_file_names(repo: Path) -> None:
    names = ["with space.txt", "ünïcødé.txt", "new\nline.txt", 'tab\tand"quote.txt', "-dash"]
    if sys.platform not in ("win32", "darwin"):
        names.append(os.fsdecode(b"latin1-\xe9.txt"))  # not UTF-8
    for name in names:
        write(repo / name, "v1\n")
    commit_all(repo)
    snapper = Snapshotter(repo)
    before = snapper.take()
    assert before.entries == {}
    for name in names:
        write(repo / name, "v2\n")
    after = snapper.take()
    assert set(after.entries) == set(names)
    assert snapper.diff(before, after).paths == tuple(sorted(names))
    restored = Snapshot.from_json(after.to_json())
    assert restored == after
    assert changed_since(Snapshotter(repo), restored) == ()
    commit_all(repo)
    assert changed_since(snapper, after) == ()
    assert changed_since(snapper, before) == tuple(sorted(names))


def test_merge_conflict(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    write(repo / "README.md", "theirs\n")
    commit_all(repo)
    git(repo, "checkout", "-q", "main")
    write(repo / "README.md", "ours\n")
    commit_all(repo)
    snapper = Snapshotter(repo)
    before = snapper.take()
    assert git_fails(repo, "merge", "-q", "other")
    during = snapper.take()
    assert "README.md" in during.entries
    assert snapper.diff(before, during).paths == ("README.md",)
    write(repo / "README.md", "ours\n")  # resolved by keeping ours: content as before
    git(repo, "commit", "-q", "-am", "merged")
    assert changed_since(snapper, before) == ()


def test_nested_repository_is_one_entry_fingerprinted_by_its_content(repo: Path) -> None:
    snapper = Snapshotter(repo)
    before = snapper.take()
    nested = repo / "vendor/lib"
    write(nested / "x.txt", "x\n")
    init_repo(nested)
    after = snapper.take()
    assert list(after.entries) == ["vendor/lib"]
    assert after.entries["vendor/lib"].startswith("dir:")
    assert snapper.diff(before, after).paths == ("vendor/lib",)
    assert changed_since(snapper, after) == ()  # nothing inside changed: same fingerprint
    write(nested / "x.txt", "x\nmore\n")  # an edit inside the nested repository
    assert changed_since(snapper, after) == ("vendor/lib",)
    again = snapper.take()
    commit_all(nested)  # a commit inside it: its files, what the checks read, are as they were
    assert changed_since(snapper, again) == ()
    write(nested / "build/x.txt", "output\n")  # tool output inside it: never compared
    assert changed_since(snapper, again) == ()
    write(nested / ".git/hooks/x", "not a file of the project\n")
    assert changed_since(snapper, again) == ()


def plant_filter(root: Path, ran: Path) -> None:
    """A clean filter in `root`'s own config, named for every .txt file, that touches `ran`."""
    git(root, "config", "filter.x.clean", f"sh -c 'touch {ran}; cat'")
    git(root, "config", "filter.x.required", "true")


def same_size_edit(path: Path, text: str) -> None:
    """New bytes of the same size and a later mtime: git must read the file (through its
    filter) to tell whether it changed."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def test_git_never_enters_a_nested_repository_whose_filter_would_run(repo: Path) -> None:
    ran = repo.parent / "ran"
    lib = repo.parent / "lib-origin"
    init_repo(lib)
    write(lib / "a.txt", "a\n")
    write(lib / ".gitattributes", "*.txt filter=x\n")
    commit_all(lib)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    # a .gitmodules setting that undoes git's config default: the command line outranks it
    git(repo, "config", "-f", ".gitmodules", "submodule.lib.ignore", "none")
    commit_all(repo)
    nest = repo / "nest"  # a plain repository made inside the project
    init_repo(nest)
    write(nest / "b.txt", "b\n")
    write(nest / ".gitattributes", "*.txt filter=x\n")
    commit_all(nest)
    plant_filter(repo / "lib", ran)
    plant_filter(nest, ran)
    snapper = Snapshotter(repo)
    before = snapper.take()
    same_size_edit(repo / "lib/a.txt", "A\n")
    same_size_edit(nest / "b.txt", "B\n")
    assert changed_since(snapper, before) == ("lib", "nest")  # seen by ralph's walk
    assert snapper.room_files(snapper.take())[1] == ["lib", "nest"]
    assert snapper.nested_files("lib") == [".gitattributes", "a.txt"]
    assert not ran.exists()
    # the controls: git let into either runs the filter
    git(repo, "status", "--ignore-submodules=none")
    assert ran.exists()
    ran.unlink()
    git(nest, "status")
    assert ran.exists()


def test_edit_inside_a_dirty_submodule_is_a_change(repo: Path) -> None:
    lib = repo.parent / "lib-origin"
    init_repo(lib)
    write(lib / "a.txt", "a\n")
    commit_all(lib)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    commit_all(repo)
    write(repo / "lib/a.txt", "a\nchanged\n")  # dirty before the rotation
    snapper = Snapshotter(repo)
    before = snapper.take()
    assert changed_since(snapper, before) == ()
    write(repo / "lib/a.txt", "a\nchanged again\n")  # the agent edits it further
    assert changed_since(snapper, before) == ("lib",)


def test_repository_git_refuses_is_an_error_not_a_silent_walk(repo: Path) -> None:
    # An owner check git applies in CI containers; simulated with an unreadable config.
    (repo / ".git" / "config").write_text("[core\nbroken")
    with pytest.raises(StateError, match="git cannot read the repository"):
        Snapshotter(repo)


def test_untracked_symlink_committed_unchanged(repo: Path) -> None:
    if sys.platform == "win32":
        pytest.skip("symlinks need privileges on Windows")
    (repo / "link").symlink_to("./src/app.py")
    snapper = Snapshotter(repo)
    before = snapper.take()
    commit_all(repo)
    assert changed_since(snapper, before) == ()


def test_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    try:
        init_repo(root, "--object-format=sha256")
    except subprocess.CalledProcessError:
        pytest.skip("this git cannot create SHA-256 repositories")
    write(root / "a.txt", "a\n")
    commit_all(root)
    write(root / "a.txt", "dirty\n")
    snapper = Snapshotter(root)
    before = snapper.take()
    assert before.entries["a.txt"] == git(root, "hash-object", "a.txt")
    assert len(before.head or "") == 64
    assert Snapshot.from_json(before.to_json()) == before
    commit_all(root)
    assert changed_since(snapper, before) == ()
    write(root / "b.txt", "b\n")
    commit_all(root)
    assert changed_since(snapper, before) == ("b.txt",)


def test_clean_tree_with_big_ignored_folder_hashes_nothing(tmp_path: Path) -> None:
    files = {f"src/pkg{i % 40}/mod{i}.py": f"x = {i}\n" for i in range(2000)}
    files[".gitignore"] = "node_modules/\n"
    root = make_project(tmp_path / "proj", "git", files)
    for i in range(2000):
        write(root / f"node_modules/dep{i % 40}/f{i}.js", "js\n")
    snapper = Snapshotter(root)
    snap = snapper.take()
    assert snap.entries == {}
    assert snapper.hashed_files == 0
    assert snapper.diff(snap, snapper.take()).paths == ()


def test_walk_prunes_ignored_folders(tmp_path: Path) -> None:
    root = make_project(tmp_path / "proj", "walk")
    write(root / "node_modules/a/b.js", "b\n")
    write(root / "scratch/c.txt", "c\n")
    write(root / ".git/config", "not really a repo\n")
    write(root / "pkg/.git", "gitdir: elsewhere\n")
    snap = Snapshotter(root).take()
    assert set(snap.entries) == {
        "README.md",
        "src/app.py",
        "specs/a.spec.md",
        ".gitignore",
        ".ralphignore",
    }


def test_walk_ralphignore_cannot_unignore_gitignored(tmp_path: Path) -> None:
    root = make_project(
        tmp_path / "proj", "walk", {".gitignore": "*.log\n", ".ralphignore": "!keep.log\n"}
    )
    write(root / "keep.log", "x\n")
    assert "keep.log" not in Snapshotter(root).take().entries


def test_ralphignored_folder_cannot_be_reopened(project: Path) -> None:
    # gitignore semantics: a file under an excluded folder cannot be re-included.
    write(project / ".ralphignore", "scratch/\n!scratch/keep.txt\n")
    snapper = Snapshotter(project)
    before = snapper.take()
    write(project / "scratch/keep.txt", "x\n")
    assert changed_since(snapper, before) == ()
