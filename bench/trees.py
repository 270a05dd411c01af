"""What the bench scripts share: git with a throwaway identity, and a tree of N small source
files (100 per folder under `src/`), as a project the size of the figures has them."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path


def git(root: Path, *args: str, env: Mapping[str, str]) -> None:
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env=dict(env),
    )


def source_tree(root: Path, files: int, suffix: str, text: str, env: Mapping[str, str]) -> None:
    """A new git repository at `root` holding `files` files `src/dNNNN/f<i><suffix>`, each
    `text` with `{i}` filled in (not committed: the caller adds its own files first)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", env=env)
    for i in range(files):
        d = root / "src" / f"d{i // 100:04d}"
        if i % 100 == 0:
            d.mkdir(parents=True)
        (d / f"f{i}{suffix}").write_text(text.format(i=i))
