"""Where git holds a file a person wants to seal: the agent can read it back from there
(`git show`, `git stash show`, `git fsck --lost-found`), so sealing it would keep nothing out
of reach. Asked through ralph's own git (store/repository/git.py: no hook, filter or driver the
agent
could have written runs).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ralph.store.repository import git


def held_by_git(root: Path, rel: str, data: bytes) -> str | None:
    """Where git holds `rel` (root-relative) or its bytes, in a few words; None when it does
    not (or the project is no git repository)."""
    repo = git.find_repo(root)
    if not repo.usable:
        return None
    spec = repo.prefix.decode("utf-8", "surrogateescape") + rel
    # pathspecs from the top level, taken literally: a name with `*` is that name
    top = ("--literal-pathspecs", "-C", repo.top)
    if _out(repo, *top, "ls-files", "--cached", "-z", "--", spec):
        return "it is in git's index"
    # every commit reachable from any ref (branches, tags, the stash and its untracked
    # files' commit) or from any reflog entry (older stashes, reset commits)
    found = _out(
        repo, *top, "log", "--all", "--reflog", "--full-history", "--format=%h", "-1", "--", spec
    )
    if found:
        return f"a commit holds it ({found.decode('ascii', 'replace').strip()})"
    # the very bytes, under any name and whether reachable or not (a `git add` undone
    # leaves the blob behind, readable until git collects it)
    oid = getattr(hashlib, repo.algo)(b"blob %d\0" % len(data) + data).hexdigest()
    try:
        proc = git.call(repo, "cat-file", "-e", oid)
    except OSError:
        return None
    if proc.returncode == 0:
        return f"git's object store holds its bytes (blob {oid[:10]})"
    return None


def _out(repo: git.Repo, *args: str) -> bytes:
    try:
        proc = git.call(repo, *args)
    except OSError:
        return b""
    return proc.stdout.strip() if proc.returncode == 0 else b""
