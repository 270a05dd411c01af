"""Which project a command is about, found the way git finds its repository.

From the starting folder (the current one, or `-C DIR`) up: the nearest folder holding a
`.ralph/` folder, else the top of the git work tree it is in, else the starting folder itself.
The walk stops at a git work tree's top: a `.ralph/` above the repository (in the home folder,
say) belongs to something else. So `ralph status` in `proj/pkg/` is about `proj/`.
"""

from __future__ import annotations

from pathlib import Path

STATE_DIR = ".ralph"


def find_root(start: Path) -> Path:
    """The project root for a command started in `start` (an absolute, resolved path)."""
    for folder in (start, *start.parents):
        if (folder / STATE_DIR).is_dir():
            return folder
        if (folder / ".git").exists():  # a folder, or a file (a worktree, a submodule)
            return folder
    return start


def enclosing_project(folder: Path) -> Path | None:
    """The ralph project above `folder` that find_root would have found from it, had `folder`
    no .ralph/ of its own: where `ralph init` in a subfolder would nest a second project."""
    for candidate in (folder, *folder.parents):
        if candidate != folder and (candidate / STATE_DIR).is_dir():
            return candidate
        if (candidate / ".git").exists():
            return None  # the top of the repository `folder` is in, with no .ralph/
    return None
