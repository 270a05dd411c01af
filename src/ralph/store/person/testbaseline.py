"""The tests as a person last left them, kept across runs in the private store's `tests/`
(store/disk/private.py: out of the agent's reach, so deleting `.ralph/` switches no guard off).

- `baseline.json`: path -> sha256 of each test file as ralph first recorded it, or as a person
  last accepted or edited it; the contents are kept in `blobs/` (by hash) to compare against.
- `seen.json`: the test files as ralph last saw them (at the start of a run, and after every
  rotation that changed one). A test file that differs from it when a run starts was edited
  while ralph was not running: by a person, so it becomes the baseline. A file that an agent
  weakened stays as ralph saw it, so a restart does not bless it.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ralph.errors import RalphError, StateError
from ralph.rules.evidence.testfiles import (
    DEFAULT_GLOBS,
    RUNNER_CONFIGS,
    is_test,
    may_hold_tests,
    runner_globs,
)
from ralph.store.disk import reader
from ralph.store.disk.files import load_json, remove_file, write_json_atomic, write_text_atomic
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.repository import git
from ralph.store.snapshots import ignorebase

FORMAT = 1
MAX_BYTES = 2_000_000  # larger files are not read as tests (generated data, not test code)
# Folders never searched for tests: version control, ralph's own, installed dependencies and
# bytecode. Nothing else is left out by its name (a `dist/` or `vendor/` folder may hold tests):
# what the person's ignore rules leave out, and virtualenvs (a `pyvenv.cfg`), are.
LEFT_OUT = frozenset(
    {".git", ".hg", ".svn", ".ralph", "node_modules", "site-packages", "__pycache__"}
)
MAX_CONFIG_BYTES = 1_000_000
Files = dict[str, str]  # root-relative posix path -> sha256 of its bytes
Ignored = Callable[[str], bool]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def scan(
    root: Path, globs: Sequence[str] = DEFAULT_GLOBS, ignored: Ignored | None = None
) -> dict[str, str]:
    """Every test file under `root` now: path -> text. `ignored`: what the person's ignore
    rules leave out (a folder's path ends in "/")."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else f"{rel_dir}/"
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in LEFT_OUT
            and not (ignored is not None and ignored(f"{prefix}{d}/"))
            and not (Path(dirpath) / d / "pyvenv.cfg").exists()
        )
        for name in filenames:
            rel = prefix + name
            rust = name.endswith(".rs")
            if not (rust or is_test(rel, globs)) or (ignored is not None and ignored(rel)):
                continue
            text = read(root, rel)
            if text is not None and (is_test(rel, globs) or may_hold_tests(rel, text)):
                out[rel] = text
    return out


def person_ignored(root: Path, lock: git.GitLock | None = None) -> Ignored:
    """Is a root-relative path (a folder's ends in "/") left out by the ignore rules a person
    set (store/snapshots/ignorebase.py)? Nothing is when they cannot be read. `lock`: the run's."""
    try:
        repo = git.find_repo(root, lock)
        rules = ignorebase.baseline(root, repo)
    except StateError:
        return lambda rel: False
    prefix = os.fsdecode(repo.prefix)
    git_rules = ignorebase.BaselineMatcher(rules)
    ralph = ignorebase.ralphignore_spec(rules)

    def ignored(rel: str) -> bool:
        return git_rules(prefix + rel) or (ralph is not None and ralph.match_file(rel))

    return ignored


def runner_settings(root: Path) -> tuple[str, ...]:
    """The test files the runners' settings at the root name (rules/evidence/testfiles.py)."""
    out: dict[str, str] = {}
    for name in (*RUNNER_CONFIGS, "pyproject.toml"):
        path = root / name
        try:  # the one reader: no link, no pipe; a file over the bound is not taken
            out[name] = reader.read_text(path, limit=MAX_CONFIG_BYTES, root=root, missing=None)
        except (OSError, RalphError):
            continue
    return runner_globs(out, _toml(out.pop("pyproject.toml", None)))


def _toml(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # no TOML reader in the standard library before 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def read(root: Path, rel: str) -> str | None:
    """A test file's text; None when it is gone, unreadable or too large."""
    try:  # the one reader: no link, no pipe, nothing over MAX_BYTES
        return reader.read_text(root / rel, limit=MAX_BYTES, root=root, missing=None)
    except (OSError, RalphError):
        return None


class TestStore:
    """The baseline and the last seen test files of one project."""

    def __init__(self, state_dir: Path, name: str = "tests") -> None:
        """`state_dir`: the project's `.ralph/`; the records themselves are in its store's
        folder `name` (`tests`; the test configuration's is `testconfig`)."""
        self.root = state_dir.parent
        self.dir = store_dir(self.root) / name

    def _ensure(self) -> None:
        ensure_store(self.root)
        self.dir.mkdir(mode=0o700, exist_ok=True)

    @property
    def exists(self) -> bool:
        return (self.dir / "baseline.json").exists()

    def baseline(self) -> Files:
        return self._files("baseline.json")

    def seen(self) -> Files:
        return self._files("seen.json")

    def baseline_texts(self) -> dict[str, str]:
        """The baseline's contents (a blob that went missing counts as an empty file)."""
        return {path: self.blob(sha) or "" for path, sha in self.baseline().items()}

    def blob(self, sha: str) -> str | None:
        """A recorded content, line endings and all (None: its blob went missing)."""
        try:
            return (self.dir / "blobs" / sha).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return None

    def take(self, paths: Iterable[str], now: Mapping[str, str]) -> None:
        """`paths` as they are `now` (path -> text; a path not in it is gone) become the
        baseline's: a person's edit, or a change a spec may make."""
        base = self.baseline_texts()
        for p in paths:
            if p in now:
                base[p] = now[p]
            else:
                base.pop(p, None)
        self.save_baseline(base)

    def see(self, paths: Iterable[str], now: Mapping[str, str]) -> None:
        """`paths` as they are `now` (path -> text; a path not in it is gone) are what ralph
        has seen: a later edit of them that ralph did not see is a person's."""
        seen = self.seen()
        for p in paths:
            if p in now:
                seen[p] = digest(now[p])
            else:
                seen.pop(p, None)
        self.save_seen(seen)

    def save_baseline(self, texts: Mapping[str, str]) -> None:
        """The baseline is now `texts` (path -> text); blobs no longer needed go."""
        files = {path: digest(text) for path, text in texts.items()}
        self._ensure()
        blobs = self.dir / "blobs"
        blobs.mkdir(exist_ok=True)
        for path, sha in files.items():
            if not (blobs / sha).exists():
                write_text_atomic(blobs / sha, texts[path])
        self._save("baseline.json", files)
        keep = set(files.values())
        for blob in blobs.iterdir():
            if blob.name not in keep:
                remove_file(blob)

    def save_seen(self, files: Mapping[str, str]) -> None:
        self._save("seen.json", dict(files))

    @property
    def running(self) -> bool:
        """Was a run on when ralph last looked (a run killed mid-rotation leaves it so)?"""
        return (self.dir / "running").exists()

    def mark_running(self, on: bool) -> None:
        marker = self.dir / "running"
        if on:
            self._ensure()
            write_text_atomic(marker, "a ralph run is on: test edits are an agent's\n")
        else:
            remove_file(marker)

    def _files(self, name: str) -> Files:
        try:
            data = load_json(self.dir / name, f"tests/{name}")
        except Exception:  # damaged or missing: nothing recorded
            return {}
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, dict):
            return {}
        return {str(k): str(v) for k, v in files.items()}

    def _save(self, name: str, files: Files) -> None:
        self._ensure()
        write_json_atomic(self.dir / name, {"format": FORMAT, "files": dict(sorted(files.items()))})


def hashes(texts: Mapping[str, str]) -> Files:
    return {path: digest(text) for path, text in texts.items()}


def person_edits(seen: Files, now: Files, paths: Iterable[str] | None = None) -> set[str]:
    """Paths whose content differs from what ralph last saw (added, changed or deleted)."""
    keys = set(seen) | set(now) if paths is None else set(paths)
    return {p for p in keys if seen.get(p) != now.get(p)}


def observe(store: TestStore, root: Path, paths: Sequence[str], *, may_change: bool) -> None:
    """What a rotation changed of `paths`, read in the tree at `root` now, is what `store` has
    seen, and with `may_change` its baseline too (the tests' guard and the configuration's)."""
    if paths:
        now = {p: t for p in paths if (t := read(root, p)) is not None}
        store.see(paths, now)
        if may_change:
            store.take(paths, now)
