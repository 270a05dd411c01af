"""Git plumbing of lanes (GitPython, imported only when lanes run): worktrees under `.ralph/`,
lane branches, ralph's commits of a lane's work, merges that abort cleanly on a conflict.

Every command that writes to the shared repository (worktrees, refs, the main work tree's
merges) holds GIT_LOCK, so lanes never fight over `.git`'s own lock files.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import StateError
from ralph.store.workspace import STATE_DIR

if TYPE_CHECKING:
    from git import Repo

GIT_LOCK = threading.RLock()
WORKTREES = "worktrees"
# ralph's own commits carry this identity when the repository has none configured.
IDENTITY = ("ralph", "ralph@localhost")


def lane_path(root: Path, name: str) -> Path:
    """Where a lane's worktree lives: the one place that says it (sandboxes allow writes here)."""
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


def repo(path: Path) -> Repo:
    from git import InvalidGitRepositoryError, NoSuchPathError, Repo

    try:
        return Repo(path)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise StateError(
            f"--parallel needs a git repository: {path} is not the top of one",
            "run `git init` and commit your work, or run without --parallel",
        ) from None


def _git(r: Repo, *args: str) -> str:
    from git import GitCommandError

    name, email = _identity(r)
    try:
        out: str = r.git.execute([*_config(name, email), *args])
        return out
    except GitCommandError as exc:
        reason = str(exc.stderr or exc).strip().splitlines() or ["failed"]
        raise StateError(
            f"git {args[0]} in {r.working_tree_dir}: {reason[-1].strip()}",
            "fix what git reports, then run ralph again",
        ) from None


def _config(name: str, email: str) -> list[str]:
    return ["git", "-c", f"user.name={name}", "-c", f"user.email={email}"]


def _identity(r: Repo) -> tuple[str, str]:
    reader = r.config_reader()
    name = reader.get_value("user", "name", "") or IDENTITY[0]
    email = reader.get_value("user", "email", "") or IDENTITY[1]
    return str(name), str(email)


def current_branch(r: Repo) -> str:
    if r.head.is_detached:
        raise StateError(
            f"--parallel needs a branch to merge into; HEAD is detached in {r.working_tree_dir}",
            "check out a branch (git switch -c work), then run ralph again",
        )
    return str(r.active_branch.name)


def unclean(r: Repo) -> list[str]:
    """What keeps the work tree from being clean (git status --porcelain lines)."""
    out = r.git.status("--porcelain", "--untracked-files=all")
    return [line for line in str(out).splitlines() if line.strip()]


def head_tree(r: Repo) -> str:
    return str(r.git.rev_parse("HEAD^{tree}"))


def has_branch(r: Repo, branch: str) -> bool:
    return bool(r.git.branch("--list", branch).strip())


def add_worktree(r: Repo, path: Path, branch: str, start: str) -> None:
    """The lane's worktree on its branch (made from `start` when it does not exist yet)."""
    with GIT_LOCK:
        if (path / ".git").exists():
            return  # left by an earlier run: its work goes on there
        path.parent.mkdir(parents=True, exist_ok=True)
        _git(r, "worktree", "prune")  # a worktree folder deleted by hand is forgotten first
        if has_branch(r, branch):
            _git(r, "worktree", "add", "--quiet", str(path), branch)
        else:
            _git(r, "worktree", "add", "--quiet", "-b", branch, str(path), start)


def remove_worktree(r: Repo, path: Path, branch: str) -> bool:
    """Remove a merged lane: its worktree, then its branch (`-d`: git refuses to delete a
    branch that is not merged, so no lane commit is ever lost). False when it was kept."""
    with GIT_LOCK:
        if path.exists():
            _git(r, "worktree", "remove", "--force", str(path))
        _git(r, "worktree", "prune")
        if has_branch(r, branch):
            try:
                _git(r, "branch", "-d", branch)
            except StateError:
                return False
    return True


def unmerged_files(r: Repo) -> list[str]:
    out = r.git.diff("--name-only", "--diff-filter=U")
    return [line for line in str(out).splitlines() if line]


def commit_all(r: Repo, message: str) -> bool:
    """Commit what the agent left uncommitted; False when there was nothing (or a merge of
    its own still has unresolved conflicts: those are never committed as they are)."""
    with GIT_LOCK:
        if unmerged_files(r) or not unclean(r):
            return False
        _git(r, "add", "-A")
        _git(r, "commit", "--quiet", "--no-verify", "-m", message)
        return True


def merging(r: Repo) -> bool:
    """A merge is half done in this work tree (MERGE_HEAD exists)."""
    return Path(r.git_dir, "MERGE_HEAD").exists()


def abort_merge(r: Repo) -> None:
    with GIT_LOCK:
        _git(r, "merge", "--abort")


def merge(r: Repo, ref: str, message: str) -> Merged:
    """Merge `ref` into the work tree's branch; on a conflict abort it and say where."""
    from git import GitCommandError

    with GIT_LOCK:
        before = head_tree(r)
        name, email = _identity(r)
        try:
            r.git.execute(
                [*_config(name, email), "merge", "--no-edit", "--no-verify", "-m", message, ref]
            )
        except GitCommandError as exc:
            files = unmerged_files(r)
            if merging(r):
                _git(r, "merge", "--abort")
            if not files:
                reason = str(exc.stderr or exc).strip().splitlines() or ["failed"]
                raise StateError(
                    f"git merge {ref} in {r.working_tree_dir}: {reason[-1].strip()}",
                    "fix what git reports (nothing was merged), then run ralph again",
                ) from None
            return Merged(conflicts=tuple(files))
        after = head_tree(r)
        return Merged(changed=after != before, tree=after)


def is_merged(r: Repo, branch: str, into: str = "HEAD") -> bool:
    from git import GitCommandError

    try:
        r.git.merge_base("--is-ancestor", branch, into)
    except GitCommandError:
        return False
    return True


def _calm(r: Repo, *args: str) -> tuple[int, str]:
    """A read-only git command in a session of its own: a Ctrl-C meant for ralph does not kill
    it half way (its answer would be taken for a "no"). Returns its exit status and output."""
    status, out, _ = r.git.execute(
        ["git", *args], with_extended_output=True, with_exceptions=False, start_new_session=True
    )
    return int(status), str(out).strip()


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
    status, _ = _calm(r, "diff", "--quiet", base, "--", path)
    return {0: True, 1: False}.get(status)
