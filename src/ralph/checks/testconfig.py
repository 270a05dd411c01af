"""The test configuration as a person last left it: recorded beside the tests, taken and updated
as they are (checks/testguard.py drives it), and shown and accepted in `ralph accept`.

What counts is rules/evidence/testconfig.py's (by name), plus the `__init__.py` of a folder of
tests,
the runner scripts the test commands name. A `.env` counts too, ignored or not: the clean room
holds the person's (a copy in ralph's private store, as the room's is).
A changed line here is normal, so nothing refuses a DONE for it: the person's configuration
is put back for the run of the person's tests (checks/persontests.py).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import posixpath
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.acceptance import Pending, Scope
from ralph.errors import RalphError
from ralph.rules.counts.state import State
from ralph.rules.environment.configparts import steering
from ralph.rules.evidence.testconfig import (
    MAKEFILES,
    command_scripts,
    holds_only_tests,
    kind,
    recipe_commands,
)
from ralph.rules.evidence.testfiles import DEFAULT_GLOBS, is_test
from ralph.store.person.testbaseline import TestStore, hashes, observe, person_edits, read

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig

STORE = "testconfig"  # its folder in the private store
# folders not looked into: the project's environments (`node_modules`, a virtualenv: a folder
# with a `pyvenv.cfg`), bytecode, and dot-folders (version control, ralph's own, tools'
# caches; pytest does not collect from them either). Build output folders are: tests and
# their configuration may live there.
ENVIRONMENTS = frozenset({"node_modules", "__pycache__", "site-packages"})


class ConfigGuard:
    def __init__(
        self,
        root: Path,
        state_dir: Path,
        globs: Sequence[str] = DEFAULT_GLOBS,
        commands: Sequence[str] = (),
        project: RalphConfig | None = None,  # the run's ralph.yaml; None: the accepted one
    ) -> None:
        self.root = root
        self.project = project
        self.store = TestStore(state_dir, STORE)
        self.globs = tuple(globs)
        self.commands = tuple(commands)

    def start(self, *, take: bool) -> list[str]:
        """When a run starts: record the configuration the first time; afterwards, what changed
        while ralph was not running is a person's edit (taken when `take`: not after a run
        that ended unclean). The paths that changed."""
        now = self.scan()
        if not self.store.exists:
            self.store.save_baseline(now)
            self.store.save_seen(hashes(now))
            return []
        edited = sorted(person_edits(self.store.seen(), hashes(now)))
        if edited and take:
            self.store.take(edited, now)
        self.store.save_seen(hashes(now))
        return edited

    def finish(self) -> None:
        self.store.save_seen(hashes(self.scan()))

    def after_rotation(self, changed: Iterable[str], *, may_change: bool) -> None:
        """What a rotation changed of the configuration is what ralph has seen (and with
        `may_change` the baseline). Reads only the changed paths that are configuration."""
        changed = list(changed)
        known = set(self.store.seen()) | set(self.store.baseline())
        if any(p.startswith("(") for p in changed):  # "everything may have changed"
            paths = sorted(set(self.scan()) | known)
        else:
            scripts = self.scripts()
            paths = [p for p in changed if p in known or self.is_config(p, scripts=scripts)]
        observe(self.store, self.root, paths, may_change=may_change)

    def scripts(self) -> set[str]:
        """The runner scripts the test commands name that are files in the tree."""
        commands = [*self.commands, *_project_command(self.root, self.project)]
        for name in (*MAKEFILES, "package.json"):  # what `make test`, `npm test` run
            text = read(self.root, name)
            commands += recipe_commands(name, text) if text is not None else []
        found = {p for c in commands for p in command_scripts(c)}
        return {p for p in found if (self.root / p).is_file() and not is_test(p, self.globs)}

    def is_config(
        self, rel: str, names: Iterable[str] | None = None, *, scripts: set[str] | None = None
    ) -> bool:
        """Is the file `rel` test configuration now (`names`: its folder's files, when known)?
        Test files are not: the tests' own baseline holds them."""
        if is_test(rel, self.globs):
            return False
        name = posixpath.basename(rel)
        if kind(rel) is not None:
            return True
        if name == "__init__.py":
            if names is None:
                with contextlib.suppress(OSError):
                    names = [p.name for p in (self.root / rel).parent.iterdir()]
            return names is not None and holds_only_tests(names, self.globs)
        return rel in (self.scripts() if scripts is None else scripts)

    def scan(self) -> dict[str, str]:
        """Every configuration file in the tree now: path -> text."""
        scripts = self.scripts()
        found: list[str] = sorted(scripts)
        for rel, name, names in tree_files(self.root):
            if (name == "__init__.py" or kind(rel) is not None) and self.is_config(
                rel, names, scripts=scripts
            ):
                found.append(rel)
        return {p: t for p in dict.fromkeys(found) if (t := read(self.root, p)) is not None}

    def changed(self) -> dict[str, tuple[str | None, str | None]]:
        """Configuration whose test-steering part differs from the baseline: path ->
        (the baseline's text, the text now), None where there is none."""
        if not self.store.exists:
            return {}
        base = self.store.baseline()
        now = self.scan()
        out: dict[str, tuple[str | None, str | None]] = {}
        for p in sorted(set(base) | set(now)):
            old = self.store.blob(base[p]) or "" if p in base else None
            new = now.get(p)
            if _view(p, old) != _view(p, new):
                out[p] = (old, new)
        return out

    def accept(self) -> None:
        """A person's say: the configuration as it is now is the baseline."""
        now = self.scan()
        self.store.save_baseline(now)
        self.store.save_seen(hashes(now))


def tree_files(root: Path) -> Iterator[tuple[str, str, list[str]]]:
    """Every file of the tree: its root-relative posix path, its name, and the names of its
    folder's files."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in ENVIRONMENTS
            and not Path(dirpath, d, "pyvenv.cfg").exists()
        )
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else f"{rel_dir}/"
        for name in filenames:
            yield prefix + name, name, filenames


def _view(path: str, text: str | None) -> str | None:
    """What of a configuration file is the person's: all of it, or a mixed file's steering part."""
    if text is None or kind(path) != "mixed":
        return text
    return steering(posixpath.basename(path), text)


def diff_lines(changed: dict[str, tuple[str | None, str | None]]) -> list[str]:
    """The changes as unified diff lines (of the steering part, for a mixed file)."""
    out: list[str] = []
    for p, (old, new) in changed.items():
        out += difflib.unified_diff(
            (_view(p, old) or "").splitlines(),
            (_view(p, new) or "").splitlines(),
            f"{p} (accepted)" if old is not None else f"{p} (none accepted)",
            f"{p} (now)" if new is not None else f"{p} (deleted)",
            n=1,
            lineterm="",
        )
    return out


def _project_command(root: Path, project: RalphConfig | None) -> list[str]:
    """The project's `test_command` in ralph.yaml (as the run read it, else as a person
    accepted it)."""
    from ralph.store.person.settings import run_or_accepted

    try:
        command = run_or_accepted(root, project).test_command
    except RalphError:  # the run itself says what is wrong with the settings
        return []
    return [command] if command else []


class ConfigAcceptor:
    """`ralph accept` for the test configuration: shows what changed of it, makes it the
    baseline the person's tests run with."""

    kind = "test configuration"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        guard = config_guard(scope)
        changed = guard.changed()
        if not changed:
            return []
        summary = (
            "the test configuration, changed since a person last left it (the person's tests "
            f"run with theirs until accepted): {', '.join(changed)}"
        )
        return [Pending(self.kind, None, summary, tuple(diff_lines(changed)))]

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        config_guard(scope).accept()
        return state


def config_guard(scope: Scope) -> ConfigGuard:
    """The guard of a project as `ralph accept` sees it: its specs' commands name the scripts."""
    from ralph.specs.frontmatter import parse_front_matter

    commands: list[str] = []
    for spec in scope.specs:
        with contextlib.suppress(RalphError):
            meta = parse_front_matter(spec.path, spec.text)
            commands += meta.own_commands if meta is not None else ()
    globs = scope.test_globs if scope.test_globs is not None else DEFAULT_GLOBS
    return ConfigGuard(scope.root, scope.state_dir, globs, commands)
