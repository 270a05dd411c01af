"""Snapshots of the project's tracked files, to tell whether an agent rotation changed any."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pathspec

from ralph.errors import StateError

RALPH_DIR = ".ralph"
RALPHIGNORE = ".ralphignore"
DELETED = "deleted"
DIRECTORY = "dir"  # a nested repository or submodule: git tracks it as one entry, not its files
UNREADABLE = "unreadable"
SNAPSHOT_FORMAT = 1

# Never a real fingerprint: stands for "whatever HEAD holds" in `diff_entries`.
_AT_HEAD = "(as in HEAD)"
_HEAD_RE = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})?\Z")
_ZERO_ID_RE = re.compile(r"0{40}(?:0{24})?\Z")
_CHUNK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
_SNAPSHOT_HINT = (
    "delete the saved snapshot under .ralph/: ralph takes a new one, but cannot tell "
    "what changed while it was not running"
)

# (size, mtime_ns, ino, ctime_ns, fingerprint)
_CacheEntry = tuple[int, int, int, int, str]


@dataclass(frozen=True)
class Snapshot:
    """The tracked files at one moment: in git mode HEAD plus the dirty paths, else every file."""

    kind: Literal["git", "walk"]
    head: str | None  # HEAD commit in git mode, "" before the first commit; None in walk mode
    entries: Mapping[str, str]  # root-relative posix path -> fingerprint

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict that `from_json` turns back into an equal snapshot."""
        entries: dict[str, str] = {}
        raw: dict[str, str] = {}
        for path, fingerprint in self.entries.items():
            if _is_unicode(path):
                entries[path] = fingerprint
            else:
                # Names that are not UTF-8 come back from os.fsdecode with lone surrogates,
                # which not every JSON writer accepts: store their bytes instead.
                raw[path.encode("utf-8", "surrogatepass").hex()] = fingerprint
        data: dict[str, Any] = {
            "format": SNAPSHOT_FORMAT,
            "kind": self.kind,
            "head": self.head,
            "entries": entries,
        }
        if raw:
            data["raw_entries"] = raw
        return data

    @classmethod
    def from_json(cls, data: Any) -> Snapshot:
        if not isinstance(data, dict):
            raise _invalid("not a JSON object")
        if data.get("format") != SNAPSHOT_FORMAT:
            raise _invalid(f"unknown format {data.get('format')!r}")
        kind = data.get("kind")
        head = data.get("head")
        if kind == "walk":
            if head is not None:
                raise _invalid("a walk snapshot has no HEAD")
        elif kind == "git":
            if not isinstance(head, str) or not _HEAD_RE.match(head):
                raise _invalid(f"bad HEAD {head!r}")
        else:
            raise _invalid(f"unknown kind {kind!r}")
        entries = _str_mapping(data.get("entries"), "entries")
        for key, fingerprint in _str_mapping(data.get("raw_entries", {}), "raw_entries").items():
            try:
                path = bytes.fromhex(key).decode("utf-8", "surrogatepass")
            except ValueError:
                raise _invalid(f"bad raw entry {key!r}") from None
            entries[path] = fingerprint
        return cls(kind=kind, head=head, entries=entries)


@dataclass(frozen=True)
class Changes:
    """What differs between two snapshots; false when nothing does."""

    paths: tuple[str, ...]  # sorted, root-relative; pseudo paths in parentheses stand for "all"

    def __bool__(self) -> bool:
        return bool(self.paths)

    def __len__(self) -> int:
        return len(self.paths)


def diff_entries(
    before: Mapping[str, str],
    after: Mapping[str, str],
    commit_changes: Mapping[str, tuple[str, str]] | None = None,
) -> Changes:
    """Paths whose content differs; `commit_changes` maps path -> (old blob, new blob) when
    HEAD moved between the snapshots, since a clean path then means "as in the new HEAD"."""
    if commit_changes is None:
        changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        return Changes(tuple(sorted(changed)))
    changed = set()
    for path in commit_changes.keys() | before.keys() | after.keys():
        old_blob, new_blob = commit_changes.get(path, (_AT_HEAD, _AT_HEAD))
        old = before[path] if path in before else _blob_or_deleted(old_blob)
        new = after[path] if path in after else _blob_or_deleted(new_blob)
        if old != new:
            changed.add(path)
    return Changes(tuple(sorted(changed)))


class Snapshotter:
    """Takes snapshots of one project; keeps a stat cache so unchanged files are not re-hashed."""

    # Timestamps can be as coarse as 2 s (FAT) and are jiffy-grained on Linux, so a file written
    # twice within one tick may keep its size and times: files this young are not cached.
    racy_window_ns = 2_000_000_000

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise StateError(
                f"{self.root}: project folder not found",
                "run ralph from an existing project folder",
            )
        self._root_str = str(self.root)
        # str concatenation: a Path per file is measurably slower on large trees.
        self._root_prefix = self._root_str.rstrip(os.sep) + os.sep
        self.hashed_files = 0  # files hashed by the last take(): the cache at work, for tests
        self._cache: dict[str, _CacheEntry] = {}
        self._ralphignore = _load_ignore(self.root / RALPHIGNORE, strict=True)
        self._dir_ignored: dict[str, bool] = {}
        self._nested: dict[str, Snapshotter] = {}  # nested repositories and submodules
        self._prefix = b""  # the project root relative to the git top level, "sub/dir/"
        self._algo = "sha1"
        self.kind: Literal["git", "walk"] = "git" if self._probe_git() else "walk"
        self._walk_specs: list[pathspec.GitIgnoreSpec] = []
        self._walk_memo: dict[str, bool] = {}
        if self.kind == "walk":
            # Two specs, not one: a `!pattern` in .ralphignore must not re-include what
            # .gitignore excludes, just as it cannot in git mode.
            gitignore = _load_ignore(self.root / ".gitignore", strict=False)
            self._walk_specs = [s for s in (gitignore, self._ralphignore) if s is not None]

    def take(self) -> Snapshot:
        racy_from = time.time_ns() - self.racy_window_ns
        self.hashed_files = 0
        if self.kind == "git":
            return self._take_git(racy_from)
        return self._take_walk(racy_from)

    def diff(self, before: Snapshot, after: Snapshot) -> Changes:
        if before.kind != after.kind:
            return Changes((f"(snapshot kind changed: {before.kind} -> {after.kind})",))
        old, new = before.head or "", after.head or ""
        if before.kind == "walk" or old == new:
            return diff_entries(before.entries, after.entries)
        commit_changes = self._commit_changes(old, new)
        if commit_changes is None:
            # Without the commit diff nothing can be ruled out.
            return Changes((f"(HEAD moved: {old[:7] or 'none'}..{new[:7] or 'none'})",))
        return diff_entries(before.entries, after.entries, commit_changes)

    # -- git mode ------------------------------------------------------------------------------

    def _probe_git(self) -> bool:
        try:
            proc = _git(
                self.root, "rev-parse", "--is-inside-work-tree", "--show-prefix",
                "--show-object-format",
            )  # fmt: skip
        except OSError:  # no git executable
            return False
        lines = proc.stdout.split(b"\n")
        if proc.returncode != 0 and b"not a git repository" not in proc.stderr:
            # A repository git refuses to read (e.g. "dubious ownership" in CI containers):
            # walking the tree instead would miss nested .gitignore files and git's excludes.
            reason = proc.stderr.decode(errors="replace").strip().splitlines() or ["error"]
            raise StateError(
                f"git cannot read the repository at {self.root}: {reason[0]}",
                "fix what git reports; for a repository owned by another user: "
                "git config --global --add safe.directory <path>",
            )
        if proc.returncode != 0 or len(lines) < 2 or lines[0] != b"true":
            return False
        self._prefix = lines[1]
        if len(lines) > 2 and lines[2] == b"sha256":
            self._algo = "sha256"
        if self._prefix:
            # git status does not list files of an ignored folder, so it would see no change.
            ignored = _git(self.root, "check-ignore", "-q", ".")
            if ignored.returncode == 0:
                return False
        return True

    def _take_git(self, racy_from: int) -> Snapshot:
        proc = self._git_or_fail(
            "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--", "."
        )
        head, paths = _parse_status(proc.stdout, self._prefix)
        entries: dict[str, str] = {}
        cache: dict[str, _CacheEntry] = {}
        for path in paths:
            is_dir = path.endswith("/")
            rel = path.rstrip("/")
            if not rel or self._ignored(rel, is_dir):
                continue
            entries[rel] = self._fingerprint(rel, None, racy_from, cache)
        self._cache = cache
        return Snapshot(kind="git", head=head, entries=entries)

    def _ignored(self, rel: str, is_dir: bool) -> bool:
        if rel == RALPH_DIR or rel.startswith(RALPH_DIR + "/"):
            return True
        spec = self._ralphignore
        if spec is None:
            return False
        # As in git, a file in an ignored folder stays ignored whatever later patterns say.
        end = rel.find("/")
        while end != -1:
            folder = rel[: end + 1]
            hit = self._dir_ignored.get(folder)
            if hit is None:
                hit = self._dir_ignored[folder] = spec.match_file(folder)
            if hit:
                return True
            end = rel.find("/", end + 1)
        return spec.match_file(rel + "/" if is_dir else rel)

    def _commit_changes(self, old: str, new: str) -> dict[str, tuple[str, str]] | None:
        if self.kind != "git" or not _HEAD_RE.match(old) or not _HEAD_RE.match(new):
            return None
        empty_tree = getattr(hashlib, self._algo)(b"tree 0\0").hexdigest()
        try:
            proc = _git(
                self.root, "diff-tree", "-r", "-z", "--no-renames",
                old or empty_tree, new or empty_tree, "--", ".",
            )  # fmt: skip
        except OSError:
            return None
        if proc.returncode != 0:
            return None
        changes: dict[str, tuple[str, str]] = {}
        fields = proc.stdout.split(b"\0")
        for i in range(0, len(fields) - 1, 2):
            meta = fields[i].split(b" ")
            if len(meta) < 5 or not meta[0].startswith(b":"):
                return None  # not the raw format we asked for: trust nothing
            rel = _relative(fields[i + 1], self._prefix)
            if rel is None or self._ignored(rel, False):
                continue
            changes[rel] = (meta[2].decode("ascii"), meta[3].decode("ascii"))
        return changes

    def _git_or_fail(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        try:
            proc = _git(self.root, *args)
        except OSError as exc:
            raise StateError(
                f"{self.root}: cannot run git ({exc.strerror or exc})",
                "install git or put it on PATH",
            ) from exc
        if proc.returncode != 0:
            lines = proc.stderr.decode(errors="replace").strip().splitlines()
            raise StateError(
                f"{self.root}: `git {args[0]}` failed: {lines[-1] if lines else proc.returncode}",
                f"run `git {args[0]}` in the project folder and fix what git reports",
            )
        return proc

    # -- walk mode -----------------------------------------------------------------------------

    def _take_walk(self, racy_from: int) -> Snapshot:
        entries: dict[str, str] = {}
        cache: dict[str, _CacheEntry] = {}
        memo: dict[str, bool] = {}
        stack: list[tuple[str, str]] = [("", self._root_str)]
        while stack:
            rel_dir, abs_dir = stack.pop()
            try:
                scan = os.scandir(abs_dir)
            except FileNotFoundError:
                if not rel_dir:
                    raise StateError(
                        f"{self.root}: project folder not found",
                        "run ralph from an existing project folder",
                    ) from None
                continue  # removed while we walked: its files are simply absent
            except OSError as exc:
                if not rel_dir:
                    raise StateError(
                        f"{self.root}: cannot list the project folder ({exc.strerror or exc})",
                        "check the folder's permissions",
                    ) from exc
                entries[rel_dir.rstrip("/")] = UNREADABLE
                continue
            with scan:
                for entry in scan:
                    name = entry.name
                    if name == ".git" or (name == RALPH_DIR and not rel_dir):
                        continue
                    rel = rel_dir + name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if not self._walk_ignored(rel + "/", memo):
                                stack.append((rel + "/", entry.path))
                        elif self._walk_ignored(rel, memo):
                            continue
                        elif entry.is_file(follow_symlinks=False):
                            st = entry.stat(follow_symlinks=False)
                            entries[rel] = self._fingerprint(rel, st, racy_from, cache)
                        elif entry.is_symlink():
                            entries[rel] = self._fingerprint(rel, None, racy_from, cache)
                        # git does not track sockets, fifos or devices either
                    except FileNotFoundError:
                        continue  # removed while we walked
                    except OSError:
                        entries[rel] = UNREADABLE
        self._cache = cache
        self._walk_memo = memo
        return Snapshot(kind="walk", head=None, entries=entries)

    def _walk_ignored(self, rel: str, memo: dict[str, bool]) -> bool:
        if not self._walk_specs:
            return False
        # Matching is the slow part of a walk; the set of paths barely changes between takes.
        hit = self._walk_memo.get(rel)
        if hit is None:
            hit = any(spec.match_file(rel) for spec in self._walk_specs)
        memo[rel] = hit
        return hit

    # -- fingerprints --------------------------------------------------------------------------

    def _nested_fingerprint(self, rel: str) -> str:
        """A nested repository or submodule, which git lists as one entry: what is inside it.

        Its own snapshot (HEAD plus dirty files) changes whenever a file in it does.
        """
        child = self._nested.get(rel)
        if child is None:
            try:
                child = self._nested[rel] = Snapshotter(self.root / rel)
            except StateError:
                return DIRECTORY
        snap = child.take()
        self.hashed_files += child.hashed_files
        data = json.dumps(snap.to_json(), sort_keys=True).encode()
        return f"{DIRECTORY}:{hashlib.sha256(data).hexdigest()}"

    def _fingerprint(
        self,
        rel: str,
        st: os.stat_result | None,
        racy_from: int,
        cache: dict[str, _CacheEntry],
    ) -> str:
        path = self._root_prefix + rel
        try:
            if st is None:
                st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                # Path.readlink would normalise the target ("./x" -> "x"); git stores it as is.
                target = os.readlink(os.fsencode(path))  # noqa: PTH115
                return _blob_id(target, self._algo)
        except (FileNotFoundError, NotADirectoryError):
            return DELETED
        except OSError:
            return UNREADABLE
        if stat.S_ISDIR(st.st_mode):
            return self._nested_fingerprint(rel)
        if not stat.S_ISREG(st.st_mode):
            return f"special:{stat.S_IFMT(st.st_mode):o}"
        key = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        cached = self._cache.get(rel)
        if cached is not None and cached[:4] == key:
            fingerprint = cached[4]
        else:
            try:
                fingerprint = _hash_file(path, self._algo)
            except (FileNotFoundError, NotADirectoryError):
                return DELETED
            except OSError:
                # Still changes when the file does, which is all a fingerprint must do.
                return f"{UNREADABLE}:{st.st_size}:{st.st_mtime_ns}"
            self.hashed_files += 1
        if max(st.st_mtime_ns, st.st_ctime_ns) < racy_from:
            cache[rel] = (*key, fingerprint)
        return fingerprint


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    # GIT_OPTIONAL_LOCKS stays on: letting git status refresh the index keeps later calls fast.
    return subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )


def _parse_status(out: bytes, prefix: bytes) -> tuple[str, list[str]]:
    """HEAD ("" before the first commit) and the root-relative paths of a porcelain v2 -z
    status; folders keep their trailing slash."""
    head = ""
    paths: list[str] = []
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        kind = record[:2]
        if kind == b"# ":
            if record.startswith(b"# branch.oid "):
                oid = record[len(b"# branch.oid ") :].decode("ascii", "replace")
                head = "" if oid == "(initial)" else oid
            continue
        if kind == b"1 ":
            raw = [record.split(b" ", 8)[-1]]
        elif kind == b"2 ":
            # A rename or copy is followed by its original path; both changed.
            raw = [record.split(b" ", 9)[-1], records[i] if i < len(records) else b""]
            i += 1
        elif kind == b"u ":
            raw = [record.split(b" ", 10)[-1]]
        elif kind == b"? ":
            raw = [record[2:]]
        elif not record or kind == b"! ":
            continue
        else:
            raise StateError(
                f"git status printed an entry ralph does not understand: {record[:60]!r}",
                "use a git release ralph supports (2.11 or later) or report this to ralph",
            )
        for path in raw:
            rel = _relative(path, prefix)
            if rel is not None:
                paths.append(rel)
    if not _HEAD_RE.match(head):
        raise StateError(
            f"git status printed an unexpected HEAD {head!r}",
            "run `git status` in the project folder and fix what git reports",
        )
    return head, paths


def _relative(path: bytes, prefix: bytes) -> str | None:
    """The root-relative name of a top-level-relative git path; None outside the root (the
    origin of a rename from elsewhere in the repository)."""
    if not path.startswith(prefix):
        return None
    return os.fsdecode(path[len(prefix) :])


def _blob_id(data: bytes, algo: str) -> str:
    hasher = hashlib.new(algo, b"blob %d\0" % len(data), usedforsecurity=False)
    hasher.update(data)
    return hasher.hexdigest()


def _hash_file(path: str, algo: str) -> str:
    """The git blob id of a regular file, the same `git hash-object` prints."""
    # O_NONBLOCK: a file swapped for a fifo since lstat must not hang the snapshot.
    with os.fdopen(os.open(path, _OPEN_FLAGS), "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return f"special:{stat.S_IFMT(st.st_mode):o}"
        if st.st_size <= _CHUNK:
            return _blob_id(f.read(), algo)
        # The header needs the length up front: stream with the stat size, and start over
        # in memory if the file grew or shrank while we read it.
        hasher = hashlib.new(algo, b"blob %d\0" % st.st_size, usedforsecurity=False)
        total = 0
        while chunk := f.read(_CHUNK):
            hasher.update(chunk)
            total += len(chunk)
        if total == st.st_size:
            return hasher.hexdigest()
        f.seek(0)
        return _blob_id(f.read(), algo)


def _blob_or_deleted(blob: str) -> str:
    return DELETED if _ZERO_ID_RE.match(blob) else blob


def _load_ignore(path: Path, *, strict: bool) -> pathspec.GitIgnoreSpec | None:
    """The patterns of an ignore file; None when it is absent or has none. `strict` turns an
    unreadable file or a bad pattern into an error; otherwise bad lines are skipped, as git does."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        if not strict:
            return None
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StateError(
            f"{path.name}: cannot read it ({reason})",
            f"fix {path.name} (gitignore syntax, UTF-8) or delete it",
        ) from exc
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError as exc:
            if not strict:
                continue
            raise StateError(
                f"{path.name}:{number}: invalid pattern {line!r} ({exc})",
                f"fix or remove that line of {path.name} (gitignore syntax)",
            ) from exc
        lines.append(line)
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    # Blank lines and comments compile to patterns that match nothing.
    return spec if any(p.include is not None for p in spec.patterns) else None


def _is_unicode(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _str_mapping(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _invalid(f"{what} must map strings to strings")
    return dict(value)


def _invalid(reason: str) -> StateError:
    return StateError(f"saved snapshot: not a valid snapshot ({reason})", _SNAPSHOT_HINT)
