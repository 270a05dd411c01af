"""Where a DONE gate's command checks run: the clean room of its tree (store/rooms/room.py).

Room A holds the files the snapshot compares; its environment (`tree_code`: editable installs
and PYTHONPATH entries that point into the project point at the room) makes the interpreter
write no bytecode (PYTHONDONTWRITEBYTECODE: a room holds none, so its code is compiled from
source at every run, while the interpreter's own compiled library is used as it is), load no
user site (PYTHONNOUSERSITE, so no `usercustomize`), and finds no test configuration above
the room (rules/environment/roompin.py). Room B ("<name>.person") is the same with the person's
tests and test
configuration as they last left them (checks/persontests.py): the test-running checks that
passed in room A run there once more, when the agent changed the tests (checks/personroom.py).
Then the person's sealed tests run in room A itself, synced to hold them (checks/sealed.py).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from ralph.checks import runrecord
from ralph.checks.context import GateInput
from ralph.checks.hint import HELD_SOURCE
from ralph.checks.personroom import PERSON_SUFFIX, person_gate
from ralph.checks.result import CheckResult, GateResult
from ralph.checks.runner import gate_items, run_gate
from ralph.checks.sealed import SealedRoom, person_config, sealed_gate
from ralph.checks.testguard import TestGuard
from ralph.errors import RalphError
from ralph.process.launcher import Launcher
from ralph.process.treecode import TreeCode, tree_code
from ralph.rules.counts.spec import Spec
from ralph.rules.environment.envpaths import own_environment
from ralph.rules.environment.installerfault import halt_line
from ralph.rules.environment.roompin import CONFIG_NAMES, pin_pytest
from ralph.rules.evidence.testfiles import is_test
from ralph.rules.text.heldfiles import held_line
from ralph.specs.frontmatter import SpecMeta
from ralph.store.disk import reader
from ralph.store.environments import pkgsources
from ralph.store.environments.declared import UNREAD, unread
from ralph.store.environments.envbuild import environments
from ralph.store.environments.envcopy import declared_here, envs_dir, record_start_envs
from ralph.store.environments.nodebuild import record_node_start
from ralph.store.environments.runspans import record_began, record_ended
from ralph.store.environments.uvsettings import record_person_uv
from ralph.store.repository.git import GitLock
from ralph.store.rooms.room import RoomSource, build_room, record_start
from ralph.store.rooms.roomsync import wipe
from ralph.store.rooms.startcopy import WANTED, record_start_copy, start_copy

# one build of a checks' environment at a time: the lanes are threads of one run (store/
# envbuild.py builds a declaration's folder in place, from empty)
_BUILDING = threading.Lock()
# the methods that may run a command
COMMANDS = ("external", "multi_stage", *WANTED)
UNBUILT = "ralph cannot build the environment the tree declares"
UNBUILT_HINT = (
    "make its packages reachable to uv or npm (an index in UV_INDEX_URL or your uv settings, "
    "wheels in UV_FIND_LINKS, a registry in npm_config_registry or your ~/.npmrc, or their "
    "cache), or undo the change to the files that declare them"
)


class CheckPlace:
    """The rooms of one gate's tree: the project ("main") or a lane's worktree (its name)."""

    def __init__(
        self, tree: Path, project: Path, launcher: Launcher, lock: GitLock | None = None
    ) -> None:
        self.tree, self.project = tree, project
        self.launcher = launcher  # how its commands start: in the run's sandbox
        self.lock = lock  # held by the git commands on its tree: the run's
        same = tree.resolve() == project.resolve()
        self.name = "main" if same else tree.name
        self._source: RoomSource | None = None
        self.unbuilt: CheckResult | None = None  # why the tree's environment cannot be built
        self.halted: str | None = None  # ...when it is not the tree's fault: the run's end
        self.left_out: tuple[str, ...] = ()  # what the last room built left out
        self.held: list[str] = []  # files of the environments changed while a run was live
        self.notes: list[str] = []  # said once when the run starts (those files, sources held)

    def source(self) -> RoomSource:
        if self._source is None:
            self._source = RoomSource(self.tree, self.lock)
        return self._source

    def start(self, *, copy: bool = False, keep: bool = False, envs: bool = True) -> None:
        """When the run starts: the project's environments, copied (store/environments/envcopy.py;
        `keep`:
        the last run was killed, the copies stay), what of the project is a person's
        (store/room.record_start), and with `copy` the code as it is now, unless the run
        began before (store/startcopy). `envs`: whether any check will run at all."""
        if self.name == "main":
            self.notes = []
            if envs:
                self.held = record_start_envs(self.project, keep=keep).held
                record_person_uv(self.project, os.environ)
                self.notes += record_node_start(self.project, os.environ, keep=keep)
            held = pkgsources.begin(self.project)  # the sources a person set are theirs
            self.notes += [line for line in (held_line(self.held), held) if line is not None]
            self.notes += [f"{UNREAD}: {line}" for line in unread(self.project)]
            record_began(envs_dir(self.project))  # whether checks run or not, an agent will
            record_start(self.project, self.source())
            if copy:
                record_start_copy(self.project, self.source())

    def finish(self) -> None:
        """The run ended, its agent stopped: what changes in the project's environments from
        now on is a person's (store/environments/runspans.py)."""
        if self.name == "main":
            with contextlib.suppress(OSError, RalphError):  # never hides why the run ended;
                record_ended(envs_dir(self.project))  # the span stays open: held, not taken
            with contextlib.suppress(OSError, RalphError):
                pkgsources.finish(self.project)  # what the agent changed stays held

    def here(self) -> tuple[Path, dict[str, str]]:
        """Room A, synced now, and the environment command checks run with there."""
        path, code = self.room()
        return path, code.env

    def run(
        self, tests: TestGuard, spec: Spec, meta: SpecMeta, mode: str, **gate: Any
    ) -> tuple[GateResult, Ran]:
        """`run_gate` (its keyword arguments in `gate`) with the command checks in room A,
        then, when they passed, in room B once when the agent changed the tests; the result
        and what a refusal says of the place they ran in."""
        room, code = self.for_checks(meta, mode)
        if self.unbuilt is not None:  # the tree declares what ralph cannot install
            return GateResult(False, (self.unbuilt,), halted=self.halted), Ran(code)
        result = run_gate(
            spec.path,
            self.tree,
            spec_text=spec.text,
            meta=meta,
            mode=mode,
            env=code.env,
            run_root=room,
            start=start_copy(self.project),
            rooms=self.other_room,
            launcher=self.launcher,
            project=tests.project,  # ralph.yaml as the run read it
            **gate,
        )
        cancel, logged = gate.get("cancel"), gate.get("on_result")
        left_out = self.left_out if room is not None else ()
        gi = GateInput(
            self.tree,
            spec.path,
            spec.text,
            meta,
            mode,
            cache=gate["cache"],
            tree=gate.get("tree"),
            cancel=cancel if cancel is not None else threading.Event(),
            launcher=self.launcher,
        )
        result = person_gate(result, gi, tests, self.room, logged)
        result = sealed_gate(
            result,
            project=self.project,
            spec=spec.path,
            meta=meta,
            place=self.sealed_room(tests),
            cancel=cancel,
            on_result=logged,
        )
        return result, Ran(code, left_out)

    def sealed_room(self, tests: TestGuard) -> SealedRoom:
        """Where the sealed tests run: room A itself (checks/sealed.py)."""
        return SealedRoom(
            room=self.room_a,
            snapshot=self.source().snapshotter.take,
            tree=self.tree,
            launcher=self.launcher,
            listing=lambda: self.source().listing()[0],
            config=lambda command: person_config(self.tree, tests, command),
            is_test=lambda path: is_test(path, tests.globs),
            project=tests.project,
        )

    def room_a(self, overlay: Mapping[str, bytes | None] | None) -> tuple[Path, dict[str, str]]:
        """Room A synced now, with `overlay` placed (None: as the snapshot has it), and the
        env of its checks: the same path and env whatever it holds."""
        path, code = self.room(overlay, "")
        return path, code.env

    def for_checks(self, meta: SpecMeta, mode: str) -> tuple[Path | None, TreeCode]:
        """Room A and the env for the checks of `meta`; no room (None) when none of them
        runs a command: nothing is copied for a spec whose checks only read."""
        if any(i.method in COMMANDS for i in gate_items(meta, mode)):
            return self.room()
        return None, tree_code(self.tree, self.project)

    def other_room(
        self, suffix: str, overlay: Mapping[str, bytes | None]
    ) -> tuple[Path, dict[str, str]]:
        """The room "<name>.<suffix>": room A's files with `overlay` placed, built or synced
        now, and the env to run commands with there (context.RoomMaker)."""
        path, code = self.room(overlay, "." + suffix)
        return path, code.env

    def room(
        self, overlay: Mapping[str, bytes | None] | None = None, suffix: str = PERSON_SUFFIX
    ) -> tuple[Path, TreeCode]:
        """Room A (or, with `overlay`, room B or the room of `suffix`) built or synced now,
        and the checks' env."""
        name = self.name + (suffix if overlay is not None else "")
        with _BUILDING:  # lanes' gates at once would build one folder together, wiping it
            found = environments(self.project, self.tree, os.environ, self.launcher)
        envs, why, built = found.folder, found.why, found.built
        self.halted = halt_line(why) if why is not None and found.halt else None
        # a held source's line says what to do itself; uv's needs the hint
        hint = "" if why is None or why.startswith(HELD_SOURCE) else f" ({UNBUILT_HINT})"
        self.unbuilt = (
            None
            if why is None
            else CheckResult("environment", "environment", False, summary=f"{UNBUILT}: {why}{hint}")
        )
        source = self.source()
        room = build_room(self.tree, self.project, name, replace=overlay, source=source, envs=envs)
        self.left_out = room.left_out
        # a sandbox's TMPDIR for a check in this room (process/sandbox.py, under srt)
        _fresh(room.path.parent / "tmp")
        # the room's own `.venv` is the checks' environment: what a variable names in the
        # project's is named there, and relative paths in it (store/environments/envcopy.py) meet
        # the room
        project, here = PurePath(self.project.resolve()), PurePath(room.path)
        env = own_environment(os.environ, project, here, built, pathsep=os.pathsep)
        # a cache prefix of the person's could hold bytecode for the room's own paths
        env.pop("PYTHONPYCACHEPREFIX", None)
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1")
        env["PYTEST_ADDOPTS"] = pin_pytest(
            room.path, _names(room.path), env.get("PYTEST_ADDOPTS"), empty=os.devnull
        )
        code = tree_code(room.path, self.project, env, room.path)
        src = room.path / "src"
        paths = code.env.get("PYTHONPATH", "").split(os.pathsep)
        if src.is_dir() and declared_here(room.path) and str(src) not in paths:
            # a src layout is importable as its editable install makes it, installed or not
            code.env["PYTHONPATH"] = os.pathsep.join(p for p in (*paths, str(src)) if p)
        # pytest's own record of every run here, and no test's name in its environment
        runrecord.place(room.path)
        code.env.update(runrecord.env(code.env, room.path))
        return room.path, code


@dataclass(frozen=True)
class Ran:
    """Where a gate's checks ran: what its refusal says of it (why a correct fix may fail)."""

    code: TreeCode
    left_out: tuple[str, ...] = ()

    def refusal(self) -> str | None:
        lines = [self.code.refusal()]
        if self.left_out:
            more = f" (and {len(self.left_out) - 1} more)" if len(self.left_out) > 1 else ""
            lines.append(f"not in the clean room the checks ran in: {self.left_out[0]}{more}")
        return "; ".join(line for line in lines if line) or None


def _fresh(folder: Path) -> None:
    """`folder`, made empty now (the last checks' files go); the same path every time, so
    no run of the checks can be told from another by it (the sealed run's included)."""
    if folder.exists():
        wipe(folder)
    folder.mkdir(mode=0o700, parents=True)


def _names(room: Path) -> dict[str, str]:
    """The room's own files that may hold pytest's configuration: name -> text."""
    out: dict[str, str] = {}
    for name in CONFIG_NAMES:
        path = room / name
        if path.is_file():  # a link in a room stays inside it (store/rooms/room.py)
            with contextlib.suppress(OSError, RalphError):  # a pipe there: no configuration
                out[name] = reader.read_text(path, limit=reader.TEXT_LIMIT, root=room, follow=True)
    return out
