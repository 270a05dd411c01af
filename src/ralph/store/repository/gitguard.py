"""What keeps ralph's own git from running anything the agent wrote, or from reading a repository
other than the one ralph started in.

Every git ralph runs gets: no hooks, no filter, diff or merge driver (clean/smudge/process,
textconv, external diff, merge driver: each one git's config defines is overridden with an empty
command), no fsmonitor, pager, editor, ssh command, credential helper, signing program or
background maintenance; an environment without the GIT_* variables that redirect git; and the
git directory, common directory and work tree ralph found at start, named explicitly. Before each
call the files that tell git where the repository is (`.git`, `commondir`, `gitdir`) are compared
with what they were at start: a change is refused in one line (`Anchor.check`).

And git never enters a repository inside this one (a submodule, or one the agent made): there
that repository's own config rules, and only the drivers of ours are emptied. The config here
says so by default, and every command that takes it is given `NOT_INTO_SUBMODULES` (a
`.gitmodules` `ignore` setting outranks the default, never the command line); `git add`, which
looks into a submodule whatever it is told, is given the submodules' paths to leave out
(store/repository/worktrees.py). What is inside one is compared by ralph's own walk
(store/snapshots/snapshotter.py).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RepositoryError

# Settings that make git start a program, each set to one that starts none. `-c` outranks every
# config file, the repository's included; git passes them on to the gits it starts itself.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("core.sshCommand", ""),
    ("core.askPass", ""),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("credential.helper", ""),
    ("diff.external", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("merge.verifySignatures", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"),
    ("status.submoduleSummary", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("log.showSignature", "false"),
    ("protocol.allow", "never"),
)
# What every command that takes it is given: a submodule's recorded commit is compared (git reads
# its HEAD, no more), its files never (git would run `git status` there, under its own config).
# The command line outranks a `.gitmodules` `ignore` setting, which outranks git's config.
NOT_INTO_SUBMODULES = "--ignore-submodules=dirty"
# Keys of a driver that name a program: filter.<name>.clean, diff.<name>.textconv, ...
_DRIVER_KEYS = {
    "filter": ("clean", "smudge", "process"),
    "diff": ("textconv", "command"),
    "merge": ("driver",),
}
DRIVERS_QUERY = ("config", "--name-only", "--get-regexp", r"^(filter|diff|merge)\..+\.")
# ralph's own environment is the person's, but these would point git elsewhere than the
# repository ralph checked, or make it start a program.
_KEEP = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_CEILING_DIRECTORIES")
_KEEP_PREFIXES = ("GIT_AUTHOR_", "GIT_COMMITTER_")


def options(drivers: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The `-c` options of every git ralph runs; `drivers`: the driver keys config defines."""
    pairs = [*SAFE_CONFIG]
    for key in drivers:
        pairs.append((key, ""))
        if key.startswith("filter."):  # a required filter with no command would fail the call
            pairs.append((key.rsplit(".", 1)[0] + ".required", "false"))
    out: list[str] = []
    for name, value in pairs:
        out += ["-c", f"{name}={value}"]
    return tuple(out)


def driver_keys(listed: bytes) -> tuple[str, ...]:
    """The program-naming keys among `git config --name-only --get-regexp` output."""
    found: set[str] = set()
    for line in listed.decode("utf-8", "replace").splitlines():
        section, _, rest = line.strip().partition(".")
        name, _, key = rest.rpartition(".")
        if name and key.lower() in _DRIVER_KEYS.get(section.lower(), ()):
            found.add(f"{section}.{name}.{key}")
    return tuple(sorted(found))


def environment(
    base: Mapping[str, str], git_dir: str = "", common_dir: str = "", top: str = ""
) -> dict[str, str]:
    """`base` without the variables that redirect git, with the repository named explicitly."""
    env = {
        k: v
        for k, v in base.items()
        if not k.startswith("GIT_") or k in _KEEP or k.startswith(_KEEP_PREFIXES)
    }
    env.update(GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_EDITOR=":", GIT_ASKPASS="")
    env.pop("SSH_ASKPASS", None)
    if git_dir:
        env.update(GIT_DIR=git_dir, GIT_COMMON_DIR=common_dir or git_dir, GIT_WORK_TREE=top)
    return env


@dataclass(frozen=True)
class Anchor:
    """What the files that tell git where the repository is said when ralph started."""

    top: str
    git_dir: str
    seen: tuple[tuple[str, object], ...]

    @classmethod
    def take(cls, top: str, git_dir: str) -> Anchor:
        return cls(top, git_dir, _look(top, git_dir))

    def check(self, root: Path) -> None:
        """RepositoryError when the repository is no longer the one ralph started in."""
        now = dict(_look(self.top, self.git_dir))
        for where, was in self.seen:
            if now.get(where) != was:
                raise RepositoryError(
                    f"{root}: the git repository changed under ralph ({where} is not what it "
                    "was when the run started); ralph runs no git on a repository it did not "
                    "start in",
                    f"restore {where} (an agent may have redirected it), then run ralph again",
                )


def _look(top: str, git_dir: str) -> tuple[tuple[str, object], ...]:
    """Each place's kind and identity: a folder's device and inode, a small file's text."""
    places = [top, f"{top}/.git", git_dir, f"{git_dir}/commondir", f"{git_dir}/gitdir"]
    return tuple((place, _identity(place)) for place in places)


def _identity(path: str) -> object:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return ("error", exc.errno)
    if stat.S_ISDIR(st.st_mode):
        return ("dir", st.st_dev, st.st_ino)
    if stat.S_ISREG(st.st_mode) and st.st_size < 4096:
        try:
            return ("file", Path(path).read_bytes())
        except OSError as exc:
            return ("error", exc.errno)
    return ("other", stat.S_IFMT(st.st_mode), st.st_size)
