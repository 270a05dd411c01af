"""Git for snapshots: is the project in a repository, `git status` parsed, what a commit changed.

Every call pins the repository and work tree found at start and overrides the settings that let
git skip a changed file (an agent can edit .git/config): what git reports is what is on disk.
And none runs a program the agent could have written, nor reaches another repository, nor
enters a repository inside this one (store/repository/gitguard.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ralph.errors import RepositoryError, StateError
from ralph.process.capture import run_captured
from ralph.store.repository import gitguard


class GitLock:
    """The lock every git command on a repository holds, carried by its `Repo`: a run makes
    one and passes it to each place that finds a repository (its trees, its lanes' worktrees,
    its checks' rooms), so in a lanes run the lanes' threads and the coordinator never run two
    git commands at once (`.git`'s own lock files, a worktree half made). Re-entrant: a
    command run while its caller holds it (a merge's steps) goes on."""

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def __enter__(self) -> GitLock:
        self._lock.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self._lock.release()


HEAD_RE = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})?\Z")

# Stat shortcuts git may be told to take (size-only checks, no ctime, assume-unchanged on add, a
# file-system monitor or untracked cache that answers for the files); replacement refs that
# change what a commit id means.
_STRICT = (
    "--no-replace-objects",
    *("-c", "core.checkStat=default", "-c", "core.trustctime=true"),
    *("-c", "core.ignoreStat=false", "-c", "core.fsmonitor=false"),
    *("-c", "core.untrackedCache=false", "-c", "core.bare=false"),
)
# every change between two commits, by the paths git stores: no rename pairing, no diff driver
_DIFF_TREE = ("diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv")


@dataclass(frozen=True)
class Repo:
    """The git facts a snapshot needs about a project folder."""

    root: Path
    usable: bool = False  # git lists the folder's changes (else ralph walks the tree)
    prefix: bytes = b""  # the project root relative to the git top level, "sub/dir/"
    algo: str = "sha1"  # the repository's object format: blob ids are hashed with it
    top: str = ""  # the work tree's top level and the git directory, as found at start
    git_dir: str = ""
    common_dir: str = ""  # where config, hooks, refs and objects live (a worktree's is shared)
    anchor: gitguard.Anchor | None = None  # what says where the repository is, seen at start
    # held by every git command on it: the run's one lock, passed to `find_repo`
    lock: GitLock = field(default_factory=GitLock, compare=False, repr=False)

    @property
    def pinned(self) -> tuple[str, ...]:
        """The options that keep later calls on this repository whatever its config says."""
        if not self.git_dir:
            return ()
        return (f"--git-dir={self.git_dir}", f"--work-tree={self.top}")

    @property
    def index(self) -> Path | None:
        return Path(self.git_dir, "index") if self.git_dir else None


def find_repo(root: Path, lock: GitLock | None = None) -> Repo:
    """The repository holding `root`, its commands held by `lock` (the run's; None: a lock of
    its own); StateError when there is one git refuses to read."""
    lock = lock if lock is not None else GitLock()
    with lock:
        return replace(_find_repo(root), lock=lock)


def _find_repo(root: Path) -> Repo:
    try:
        proc = _git(
            root,
            "rev-parse",
            "--is-inside-work-tree",
            "--show-prefix",
            "--show-object-format",
            "--show-toplevel",
            "--absolute-git-dir",
            "--git-common-dir",
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
    if len(lines) < 6:
        return Repo(root)
    top, git_dir, common = (os.fsdecode(x) for x in lines[3:6])
    common = str((root / common).resolve())
    if prefix:
        # git status does not list files of an ignored folder, so it would see no change.
        ignored = _git(root, "check-ignore", "-q", ".")
        if ignored.returncode == 0:
            return Repo(root, usable=False, prefix=prefix, algo=algo)
    anchor = gitguard.Anchor.take(top, git_dir)
    return Repo(root, True, prefix, algo, top, git_dir, common, anchor)


@dataclass
class Status:
    """What `git status` listed, root-relative; folders keep their trailing slash."""

    head: str  # "" before the first commit
    changed: list[str] = field(default_factory=list)  # tracked: in the index or HEAD
    untracked: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # by the ignore rules as they are now


def status(repo: Repo, *, refresh: bool = True) -> Status:
    """HEAD and the paths `git status` lists as changed, untracked or ignored. Ignored folders
    come as one entry (git does not look inside). Submodules are never looked into, whatever
    their `ignore` setting says (git would run the status of each, with its own config: a
    filter there runs): one is listed when its commit moved; the snapshot walks every one
    (store/snapshots/snapshotter.py). `refresh=False`: git
    does not rewrite the index (another reader's snapshot would take the rewrite for someone
    else's)."""
    args = (
        *(() if refresh else ("--no-optional-locks",)),
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--ignored=matching",
        gitguard.NOT_INTO_SUBMODULES,
        "--",
        ".",
    )
    proc = _run(repo, *args, strict=True)
    return _parse_status(proc.stdout, repo.prefix)


def index_entries(repo: Repo) -> bytes:
    """`git ls-files -v -s -z` of the root: each index entry with its tag and blob."""
    return _run(repo, "ls-files", "-z", "-v", "-s", "--", ".").stdout


def submodules(repo: Repo) -> list[str]:
    """The submodules (gitlinks) in the index, root-relative: read from the index alone."""
    found = []
    for record in _run(repo, "ls-files", "-z", "-s", "--", ".").stdout.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if meta.startswith(b"160000 "):
            found.append(os.fsdecode(path))
    return found


def ignore_files(repo: Repo) -> list[str]:
    """The .gitignore files that apply to the root, relative to the top level: those of the
    folders above it and every one under it, tracked, untracked or ignored."""
    found = []
    parts = os.fsdecode(repo.prefix).split("/")[:-1]
    for depth in range(len(parts)):
        rel = "".join(part + "/" for part in parts[:depth]) + ".gitignore"
        if Path(repo.top, rel).is_file():
            found.append(rel)
    # Tracked and untracked ones, then ignored ones (a .gitignore can ignore itself) but not
    # those inside an ignored folder, which git does not read: it is listed as one entry.
    listed = ("ls-files", "-z", "--others", "--exclude-standard", "--full-name")
    pathspec = ("--", ":(glob)**/.gitignore")
    for extra in (("--cached",), ("--ignored", "--directory")):
        out = _run(repo, *listed, *extra, *pathspec).stdout
        found.extend(os.fsdecode(p) for p in out.split(b"\0") if p and not p.endswith(b"/"))
    return sorted(set(found))


def info_exclude(repo: Repo) -> Path | None:
    """The repository's own exclude file (.git/info/exclude)."""
    out = _plain(repo, "rev-parse", "--git-path", "info/exclude")
    return repo.root / out if out else None


def excludes_file(repo: Repo) -> Path | None:
    """The excludes file git config names (core.excludesFile), or git's default one."""
    out = _plain(repo, "config", "--path", "--get", "core.excludesFile")
    if out:
        return repo.root / Path(out).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(xdg, "git", "ignore")


def _plain(repo: Repo, *args: str) -> str:
    try:
        proc = call(repo, *args)
    except OSError:
        return ""
    return os.fsdecode(proc.stdout).strip() if proc.returncode == 0 else ""


def commit_changes(
    repo: Repo, old: str, new: str, ignored: Callable[[str, bool], bool]
) -> dict[str, tuple[str, str]] | None:
    """Path -> (old blob, new blob) for what differs between commits `old` and `new` ("" is
    the empty tree); None when git cannot tell, so that nothing can be ruled out."""
    if not HEAD_RE.match(old) or not HEAD_RE.match(new):
        return None
    empty_tree = getattr(hashlib, repo.algo)(b"tree 0\0").hexdigest()
    try:
        proc = call(repo, *_STRICT, *_DIFF_TREE, old or empty_tree, new or empty_tree, "--", ".")
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


def _run(repo: Repo, *args: str, strict: bool = False) -> subprocess.CompletedProcess[bytes]:
    """A git command that must succeed: a StateError saying what git said when it does not."""
    try:
        proc = call(repo, *(_STRICT if strict else ()), *args)
    except OSError as exc:
        raise StateError(
            f"{repo.root}: cannot run git ({exc.strerror or exc})",
            "install git or put it on PATH",
        ) from exc
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        raise StateError(
            f"{repo.root}: `git {args[0]}` failed: {lines[-1] if lines else proc.returncode}",
            "run `git status` in the project folder and fix what git reports",
        )
    return proc


def call(repo: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    """git `args` on the repository found at start, and only on it: RepositoryError when the
    files that say where it is changed since; OSError when git cannot start."""
    with repo.lock:
        return _call(repo, *args)


def _call(repo: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    if repo.anchor is not None:
        repo.anchor.check(repo.root)
    env = _env(repo)
    seen = _config_stamp(repo)
    # Asked before every call (2 ms): config may have gained a driver since the last one.
    listed = _git(repo.root, *repo.pinned, *gitguard.DRIVERS_QUERY, env=env)
    drivers = gitguard.driver_keys(listed.stdout)
    proc = _git(repo.root, *repo.pinned, *args, env=env, drivers=drivers)
    if _config_stamp(repo) != seen:
        # Written meanwhile (an agent of another lane runs as ralph's git does): a driver
        # that appeared between the question and the call may have run. Noticed and
        # refused; under a sandbox the agent cannot write git's config at all.
        again = _git(repo.root, *repo.pinned, *gitguard.DRIVERS_QUERY, env=env)
        added = sorted(set(gitguard.driver_keys(again.stdout)) - set(drivers))
        if added:
            raise RepositoryError(
                f"{repo.root}: git's configuration gained a program ({', '.join(added)}) "
                "while ralph's git ran: an agent wrote it, and it may have run",
                "remove it from .git/config (git config --unset ...), then run again; a "
                "sandbox (--sandbox) keeps git's configuration out of the agent's reach",
            )
    return proc


def _config_stamp(repo: Repo) -> tuple[tuple[int, int, int], ...]:
    """What tells that git's configuration or attributes changed, without reading them."""
    places = [Path(repo.common_dir or repo.git_dir, name) for name in ("config", "info/attributes")]
    if repo.git_dir:
        places.append(Path(repo.git_dir, "config.worktree"))
    stamps = []
    for place in places:
        try:
            st = place.stat()
        except OSError:
            stamps.append((0, 0, 0))
            continue
        stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(stamps)


def _env(repo: Repo) -> dict[str, str]:
    return gitguard.environment(os.environ, repo.git_dir, repo.common_dir, repo.top)


def _git(
    cwd: Path, *args: str, env: dict[str, str] | None = None, drivers: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[bytes]:
    # GIT_OPTIONAL_LOCKS stays on: letting git status refresh the index keeps later calls fast.
    env = env if env is not None else gitguard.environment(os.environ)
    argv = ["git", "-c", "core.quotepath=off", *gitguard.options(drivers), *args]
    return run_captured(argv, cwd, env)


def _parse_status(out: bytes, prefix: bytes) -> Status:
    """The entries of a porcelain v2 -z status."""
    found = Status("")
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        kind = record[:2]
        if kind == b"# ":
            if record.startswith(b"# branch.oid "):
                oid = record[len(b"# branch.oid ") :].decode("ascii", "replace")
                found.head = "" if oid == "(initial)" else oid
            continue
        paths = found.changed
        if kind == b"1 ":
            raw = [record.split(b" ", 8)[-1]]
        elif kind == b"2 ":
            # A rename or copy is followed by its original path; both changed.
            raw = [record.split(b" ", 9)[-1], records[i] if i < len(records) else b""]
            i += 1
        elif kind == b"u ":
            raw = [record.split(b" ", 10)[-1]]
        elif kind == b"? ":
            raw, paths = [record[2:]], found.untracked
        elif kind == b"! ":
            raw, paths = [record[2:]], found.ignored
        elif not record:
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
    if not HEAD_RE.match(found.head):
        raise StateError(
            f"git status printed an unexpected HEAD {found.head!r}",
            "run `git status` in the project folder and fix what git reports",
        )
    return found


def _relative(path: bytes, prefix: bytes) -> str | None:
    """The root-relative name of a top-level-relative git path; None outside the root (the
    origin of a rename from elsewhere in the repository)."""
    if not path.startswith(prefix):
        return None
    return os.fsdecode(path[len(prefix) :])
