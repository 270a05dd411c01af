"""Git for snapshots: is the project in a repository, `git status` parsed, what a commit changed."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import StateError
from ralph.process.capture import run_captured

HEAD_RE = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})?\Z")


@dataclass(frozen=True)
class Repo:
    """The git facts a snapshot needs about a project folder."""

    root: Path
    usable: bool = False  # git lists the folder's changes (else ralph walks the tree)
    prefix: bytes = b""  # the project root relative to the git top level, "sub/dir/"
    algo: str = "sha1"  # the repository's object format: blob ids are hashed with it


def find_repo(root: Path) -> Repo:
    """The repository holding `root`; StateError when there is one git refuses to read."""
    try:
        proc = _git(
            root, "rev-parse", "--is-inside-work-tree", "--show-prefix", "--show-object-format"
        )
    except OSError:  # no git executable
        return Repo(root)
    lines = proc.stdout.split(b"\n")
    if proc.returncode != 0 and b"not a git repository" not in proc.stderr:
        # A repository git refuses to read (e.g. "dubious ownership" in CI containers):
        # walking the tree instead would miss nested .gitignore files and git's excludes.
        reason = proc.stderr.decode(errors="replace").strip().splitlines() or ["error"]
        raise StateError(
            f"git cannot read the repository at {root}: {reason[0]}",
            "fix what git reports; for a repository owned by another user: "
            "git config --global --add safe.directory <path>",
        )
    if proc.returncode != 0 or len(lines) < 2 or lines[0] != b"true":
        return Repo(root)
    prefix = lines[1]
    algo = "sha256" if len(lines) > 2 and lines[2] == b"sha256" else "sha1"
    if prefix:
        # git status does not list files of an ignored folder, so it would see no change.
        ignored = _git(root, "check-ignore", "-q", ".")
        if ignored.returncode == 0:
            return Repo(root, usable=False, prefix=prefix, algo=algo)
    return Repo(root, usable=True, prefix=prefix, algo=algo)


def status(repo: Repo) -> tuple[str, list[str]]:
    """HEAD and the root-relative paths `git status` lists as changed or untracked."""
    args = ("status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--", ".")
    try:
        proc = _git(repo.root, *args)
    except OSError as exc:
        raise StateError(
            f"{repo.root}: cannot run git ({exc.strerror or exc})",
            "install git or put it on PATH",
        ) from exc
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        raise StateError(
            f"{repo.root}: `git {args[0]}` failed: {lines[-1] if lines else proc.returncode}",
            f"run `git {args[0]}` in the project folder and fix what git reports",
        )
    return _parse_status(proc.stdout, repo.prefix)


def commit_changes(
    repo: Repo, old: str, new: str, ignored: Callable[[str, bool], bool]
) -> dict[str, tuple[str, str]] | None:
    """Path -> (old blob, new blob) for what differs between commits `old` and `new` ("" is
    the empty tree); None when git cannot tell, so that nothing can be ruled out."""
    if not HEAD_RE.match(old) or not HEAD_RE.match(new):
        return None
    empty_tree = getattr(hashlib, repo.algo)(b"tree 0\0").hexdigest()
    try:
        proc = _git(
            repo.root, "diff-tree", "-r", "-z", "--no-renames",
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
        rel = _relative(fields[i + 1], repo.prefix)
        if rel is None or ignored(rel, False):
            continue
        changes[rel] = (meta[2].decode("ascii"), meta[3].decode("ascii"))
    return changes


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    # GIT_OPTIONAL_LOCKS stays on: letting git status refresh the index keeps later calls fast.
    return run_captured(["git", "-c", "core.quotepath=off", *args], cwd)


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
    if not HEAD_RE.match(head):
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
