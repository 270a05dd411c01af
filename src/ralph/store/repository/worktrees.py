"""Git plumbing of lanes: worktrees under `.ralph/worktrees/`, lane branches, ralph's commits of
a lane's work, merges that abort cleanly on a conflict. Every command runs through
store/repository/git.py,
so none runs a program the agent wrote, reaches a repository other than the project's, or
enters a submodule (store/repository/gitguard.py).

A lane's place is computed, never read: `.ralph/worktrees/<name>` for a name rules/counts/lanes.py
gives, on the branch `ralph/<name>`. Before ralph adds, commits in or removes a worktree it
checks that the real path is that place (no link on the way) and that git lists it there on
that branch (`owned`); a worktree that is not ralph's is left alone, and removing one never
follows a link (store/disk/confined.py), so the person's other worktrees are never touched.

Every git command of a lanes run holds the run's one lock (store/repository/git.py `GitLock`,
carried by
each `Repo` the run finds): lanes never fight over `.git`'s own lock files, and no command
sees another's half-made worktree.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RepositoryError, StateError, UnsafePath
from ralph.rules.counts.lanes import BRANCH_PREFIX, is_lane_name
from ralph.store.disk import confined
from ralph.store.disk.files import make_dirs
from ralph.store.disk.workspace import STATE_DIR
from ralph.store.repository import git, gitguard
from ralph.store.repository.git import Repo

WORKTREES = "worktrees"
# ralph's own commits carry this identity when the repository has none configured.
IDENTITY = ("ralph", "ralph@localhost")


def lane_path(root: Path, name: str) -> Path:
    """Where a lane's worktree lives: the one place that says it (sandboxes allow writes here).
    Only a name rules/counts/lanes.py gives has one."""
    if not is_lane_name(name):
        raise UnsafePath(
            f"{name!r} is not the name of one of ralph's lanes: nothing was touched",
            "ralph run --parallel names its lanes itself; delete what is not its own by hand",
        )
    return root / STATE_DIR / WORKTREES / name


def lanes_folder(root: Path) -> Path:
    return root / STATE_DIR / WORKTREES


@dataclass(frozen=True)
class Merged:
    """What a merge did: the conflicting files when it was aborted, else whether the tree
    changed and the tree it left."""

    conflicts: tuple[str, ...] = ()
    changed: bool = False
    tree: str = ""

    @property
    def ok(self) -> bool:
        return not self.conflicts


def repo(path: Path, lock: git.GitLock) -> Repo:
    """The repository at `path`: the project, or a lane's worktree (`lane_repo`), its
    commands held by the run's `lock`; StateError otherwise."""
    if path.parent.name == WORKTREES and path.parent.parent.name == STATE_DIR:
        return lane_repo(path.parent.parent.parent, path.name, lock)
    found = git.find_repo(path, lock)
    if not found.usable or os.path.realpath(found.top) != os.path.realpath(path):
        raise StateError(
            f"--parallel needs a git repository: {path} is not the top of one",
            "run `git init` and commit your work, or run without --parallel",
        )
    return found


def lane_repo(root: Path, name: str, lock: git.GitLock) -> Repo:
    """The repository of a lane's worktree, which must still be ralph's (`owned`) and share
    the project's repository; RepositoryError otherwise, before anything is written there."""
    path = lane_path(root, name)
    project = repo(root, lock)
    why = not_owned(project, root, name)
    if why is not None:
        raise RepositoryError(
            f"{path}: this lane's worktree is no longer ralph's ({why}); nothing was committed",
            f"move it away (ralph makes it again from the branch {BRANCH_PREFIX}{name}), "
            "then run ralph again",
        )
    found = git.find_repo(path, lock)
    if not found.usable or os.path.realpath(found.top) != os.path.realpath(path):
        raise RepositoryError(
            f"{path}: this lane's worktree is no longer a git worktree of the project; "
            "nothing was committed",
            "move it away (ralph makes it again from the lane's branch), then run ralph again",
        )
    if project.common_dir != found.common_dir:
        raise RepositoryError(
            f"{path}: this lane's worktree now belongs to another repository "
            f"({found.common_dir}); nothing was committed",
            "move it away (ralph makes it again from the lane's branch), then run ralph again",
        )
    return found


def not_owned(r: Repo, root: Path, name: str) -> str | None:
    """Why the lane `name`'s worktree is not ralph's, or None when it is: its real path is the
    place ralph computes (no link on the way, a folder) and git lists a worktree there on the
    branch `ralph/<name>`."""
    path = lane_path(root, name)
    place = str(Path(os.path.realpath(root), STATE_DIR, WORKTREES, name))
    if os.path.realpath(path) != place:
        return f"it leads to {os.path.realpath(path)}"
    if path.is_symlink() or not path.is_dir():
        return "it is not a folder"
    branch = worktree_branches(r).get(place, False)
    if branch is False:
        return "git lists no worktree there"
    if branch != BRANCH_PREFIX + name:
        return f"git lists it on {branch or 'a detached HEAD'}, not {BRANCH_PREFIX}{name}"
    return None


def _run(r: Repo, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return git.call(r, *args)
    except OSError as exc:
        raise StateError(
            f"{r.root}: cannot run git ({exc.strerror or exc})", "install git or put it on PATH"
        ) from exc


def _out(r: Repo, *args: str) -> str:
    """The output of a git command that must succeed."""
    proc = _run(r, *args)
    if proc.returncode != 0:
        raise StateError(
            f"git {args[0]} in {r.root}: {_reason(proc)}",
            "fix what git reports, then run ralph again",
        )
    return os.fsdecode(proc.stdout)


def _reason(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    lines += proc.stdout.decode("utf-8", "replace").strip().splitlines()
    return lines[0].strip() if lines else f"exit code {proc.returncode}"


def _git(r: Repo, *args: str) -> str:
    """A command that writes (a commit, a merge): with an identity when the repository has none."""
    return _out(r, *_author(r), *args)


def _author(r: Repo) -> tuple[str, ...]:
    """`-c user.name=... -c user.email=...`: the repository's own, read with one git command
    (each write asks: a person may set them during a run), or ralph's where it has none."""
    out = _run(r, "config", "--get-regexp", r"^user\.(name|email)$").stdout
    found: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        found[key.lower()] = value.strip()  # the last one set wins, as in `git config --get`
    name = found.get("user.name") or IDENTITY[0]
    return "-c", f"user.name={name}", "-c", f"user.email={found.get('user.email') or IDENTITY[1]}"


def current_branch(r: Repo) -> str:
    proc = _run(r, "symbolic-ref", "--quiet", "--short", "HEAD")
    if proc.returncode != 0:
        raise StateError(
            f"--parallel needs a branch to merge into; HEAD is detached in {r.root}",
            "check out a branch (git switch -c work), then run ralph again",
        )
    return os.fsdecode(proc.stdout).strip()


def unclean(r: Repo) -> list[str]:
    """What keeps the work tree from being clean (git status --porcelain lines)."""
    out = _out(r, "status", "--porcelain", "--untracked-files=all", gitguard.NOT_INTO_SUBMODULES)
    return [line for line in out.splitlines() if line.strip()]


def uncommitted(r: Repo) -> list[str]:
    """The paths of work in the tree that its branch lacks: what `commit_all` would commit,
    or cannot (an unresolved merge); `.ralph/` is never work."""
    paths = (line[3:] for line in unclean(r))
    return [p for p in paths if p.split("/", 1)[0] != STATE_DIR]


def incoming(r: Repo, ref: str) -> list[str] | None:
    """The paths `ref` changed since it and r's branch parted (None: git cannot say)."""
    status, out = _calm(r, "diff", "--name-only", "--no-renames", f"HEAD...{ref}", "--")
    return out.splitlines() if status == 0 else None


def head_tree(r: Repo) -> str:
    return _out(r, "rev-parse", "HEAD^{tree}").strip()


def has_branch(r: Repo, branch: str) -> bool:
    return bool(_out(r, "branch", "--list", branch).strip())


def prune_worktrees(r: Repo) -> None:
    """Forget the worktrees whose folder was deleted by hand."""
    _git(r, "worktree", "prune")


def add_worktree(r: Repo, root: Path, name: str, start: str, *, prune: bool = True) -> None:
    """The lane's worktree on its branch (made from `start` when it does not exist yet); one
    left by an earlier run is used again, once checked to be ralph's. A caller that adds
    several at once prunes once before (`prune_worktrees`), never during."""
    path, branch = lane_path(root, name), BRANCH_PREFIX + name
    with r.lock:
        if path.exists() or path.is_symlink():
            why = not_owned(r, root, name)
            if why is None:
                return  # left by an earlier run: its work goes on there
            raise RepositoryError(
                f"{path}: ralph would make the lane's worktree here, but what is there is not "
                f"ralph's ({why}); nothing was checked out",
                "move it away, then run ralph again",
            )
        make_dirs(path.parent)  # `.ralph/worktrees` a link: refused, never followed by git
        parent = str(Path(os.path.realpath(root), STATE_DIR, WORKTREES))
        if os.path.realpath(path.parent) != parent:
            raise UnsafePath(
                f"{path.parent} leads to {os.path.realpath(path.parent)}: ralph makes its "
                "lanes' worktrees only in the project; nothing was checked out",
                f"remove the link ({STATE_DIR}/{WORKTREES}), then run ralph again",
            )
        if prune:
            _git(r, "worktree", "prune")  # a worktree folder deleted by hand is forgotten first
        if has_branch(r, branch):
            _git(r, "worktree", "add", "--quiet", str(path), branch)
        else:
            _git(r, "worktree", "add", "--quiet", "-b", branch, str(path), start)
        why = not_owned(r, root, name)  # a link swapped in between: git followed it
        if why is not None:
            raise RepositoryError(
                f"{path}: the lane's worktree was moved while git made it ({why}); the run "
                "stops before anything is written there",
                "remove what is there and the worktree git lists for it, then run ralph again",
            )


def remove_worktree(r: Repo, root: Path, name: str) -> bool:
    """Remove a merged lane: its worktree, then its branch (`-d`: git refuses to delete a
    branch that is not merged, so no lane commit is ever lost). False when something was
    kept: an unmerged branch, or a worktree that is not ralph's (never touched)."""
    branch = BRANCH_PREFIX + name
    with r.lock:
        if _holds_work(r, root, name) or not _remove(r, root, name):
            return False
        if has_branch(r, branch):
            try:
                _git(r, "branch", "-d", branch)
            except StateError:
                return False
    return True


def discard_worktree(r: Repo, root: Path, name: str) -> bool:
    """Discard a lane (`ralph reset --lanes`): its worktree, and its branch even when it is not
    merged (`-D`). False when what is at its place is not ralph's: nothing was touched."""
    branch = BRANCH_PREFIX + name
    with r.lock:
        if not _remove(r, root, name):
            return False
        if has_branch(r, branch):
            _git(r, "branch", "-D", branch)
    return True


def _holds_work(r: Repo, root: Path, name: str) -> bool:
    """The lane's worktree, ralph's, holds work its branch lacks: removing it would lose it."""
    path = lane_path(root, name)
    if not (path / ".git").exists() or not_owned(r, root, name) is not None:
        return False
    lane = lane_repo(root, name, r.lock)
    # a submodule checked out there may hold work only its own git could tell: kept
    return bool(uncommitted(lane)) or any(
        (path / p / ".git").exists() for p in git.submodules(lane)
    )


def _remove(r: Repo, root: Path, name: str) -> bool:
    """The lane's worktree deleted when it is ralph's, without following any link (the
    person's other worktrees are never reached), then forgotten by git. False when something
    that is not ralph's is at its place: left as it is."""
    path = lane_path(root, name)
    if path.exists() or path.is_symlink():
        if not_owned(r, root, name) is not None:
            return False
        confined.remove_tree(root, path)
    _git(r, "worktree", "prune")
    return True


def worktree_branches(r: Repo) -> dict[str, str | None]:
    """Each worktree git knows (its resolved path) and its branch (None when detached)."""
    out: dict[str, str | None] = {}
    current: str | None = None
    for line in _out(r, "worktree", "list", "--porcelain").splitlines():
        if line.startswith("worktree "):
            current = str(Path(line[len("worktree ") :]).resolve())
            out[current] = None
        elif line.startswith("branch refs/heads/") and current is not None:
            out[current] = line[len("branch refs/heads/") :]
    return out


def unmerged_files(r: Repo) -> list[str]:
    out = _out(
        r,
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        gitguard.NOT_INTO_SUBMODULES,
        "--name-only",
        "--diff-filter=U",
    )
    return [line for line in out.splitlines() if line]


def commit_all(r: Repo, message: str, leave: Collection[str] = ()) -> bool:
    """Commit what the agent left uncommitted, but the files `leave` names (ralph's own
    reports: never a change); False when there was nothing (or a merge of its own still has
    unresolved conflicts: those are never committed as they are)."""
    with r.lock:
        if unmerged_files(r) or not unclean(r):
            return False
        # `.ralph/` is never committed, whatever the ignore files say (a lane's copy of the
        # run's notes for the agent is there)
        # never into a submodule: `git add` looks into each whatever it is told (its own
        # config, a filter there, would rule), so their paths are left out
        links = [f":(exclude,literal){path}" for path in git.submodules(r)]
        _git(r, "add", "-A", "--", ".", *links)
        kept = [f":(literal){path}" for path in leave]  # a name is a name, never a pattern
        _git(r, "reset", "--quiet", "--", STATE_DIR, *kept)  # as in HEAD: nothing of them added
        if (
            _run(
                r, "diff", "--cached", "--quiet", "--no-ext-diff", gitguard.NOT_INTO_SUBMODULES
            ).returncode
            == 0
        ):
            return False
        _git(r, "commit", "--quiet", "--no-verify", "-m", message)
        return True


def merging(r: Repo) -> bool:
    """A merge is half done in this work tree (MERGE_HEAD exists)."""
    return Path(r.git_dir, "MERGE_HEAD").exists()


def abort_merge(r: Repo) -> None:
    with r.lock:
        _git(r, "merge", "--abort")


def merge(r: Repo, ref: str, message: str, *, trees: bool = True) -> Merged:
    """Merge `ref` into the work tree's branch; on a conflict abort it and say where. Without
    `trees` (a lane taking the user's branch), whether the tree changed is not read."""
    with r.lock:
        before = head_tree(r) if trees else ""
        proc = _run(r, *_author(r), "merge", "--no-edit", "--no-verify", "-m", message, ref)
        if proc.returncode != 0:
            files = unmerged_files(r)
            if merging(r):
                _git(r, "merge", "--abort")
            if not files:
                raise StateError(
                    f"git merge {ref} in {r.root}: {_reason(proc)}",
                    "fix what git reports (nothing was merged), then run ralph again",
                )
            return Merged(conflicts=tuple(files))
        after = head_tree(r) if trees else ""
        return Merged(changed=after != before, tree=after)


def is_merged(r: Repo, branch: str, into: str = "HEAD") -> bool:
    return _run(r, "merge-base", "--is-ancestor", branch, into).returncode == 0


def _calm(r: Repo, *args: str) -> tuple[int, str]:
    """A read-only git command (in a session of its own, as every git ralph runs: a Ctrl-C
    meant for ralph does not kill it half way, and its answer is not taken for a "no").
    Returns its exit status and output."""
    proc = _run(r, *args)
    return proc.returncode, os.fsdecode(proc.stdout).strip()


def heads(r: Repo, *refs: str) -> str | None:
    """The commits `refs` point at, as one key; None when one of them is missing."""
    status, out = _calm(r, "rev-parse", *refs)
    return out if status == 0 else None


def unchanged_since_taken(r: Repo, branch: str, path: str) -> bool | None:
    """`path` in r's work tree is as it was when `branch` last took r's branch (their merge
    base): nothing a person changed there since, committed or not, that `branch` lacks.
    None when git could not tell."""
    status, base = _calm(r, "merge-base", "HEAD", branch)
    if status != 0:
        return None
    status, _ = _calm(r, "diff", "--quiet", gitguard.NOT_INTO_SUBMODULES, base, "--", path)
    return {0: True, 1: False}.get(status)
