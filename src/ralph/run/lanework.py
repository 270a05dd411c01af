"""A lane's own parts, made at its first rotation: the place its rotations work in (its
worktree, its prompt file and output log under `.ralph/lanes/<name>/`, its entry in
run.json), its tree and DONE gate; and the lane's thread: one rotation, its work committed
once its DONE counted.

A lane's thread shares nothing that changes with the coordinator: it reads the state the
coordinator gave its turn, and returns its outcome, which the coordinator folds (run/fold.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.checks.gate import DoneGate
from ralph.process.tree import started_at
from ralph.rules.counts.laneregistry import Lane
from ralph.rules.counts.spec import Spec
from ralph.run.context import Shared
from ralph.run.rotation import Rotation
from ralph.run.tree import Tree
from ralph.run.turn import Attempt, Outcome, Place, Turn
from ralph.store.disk.files import make_dirs
from ralph.store.live.lanenotes import LaneNotes
from ralph.store.repository.worktrees import commit_all, repo

if TYPE_CHECKING:
    from ralph.store.repository.git import Repo


@dataclass(frozen=True)
class LaneParts:
    """One lane's parts, made by its thread at its first rotation (after its worktree, when
    that is new: lanes open side by side, none waits for another's) and kept by the
    coordinator for the next: its rotation and its worktree's repository."""

    rotation: Rotation
    repo: Repo


@dataclass(frozen=True)
class LaneTurn:
    """What a lane's thread is handed for one rotation. Nothing in it changes, and the thread
    writes nothing the coordinator reads: it returns what it did (`LaneDone`)."""

    name: str
    worktree: Path
    turn: Turn  # the rotation's inputs, its judge and its stop event among them
    note: Callable[[str, dict[str, Any]], None]  # run.json's news of the lanes (LaneNews)
    parts: LaneParts | None  # from the lane's earlier rotations; None: made in the thread
    opening: Callable[[], None] | None = None  # makes its new worktree first, in the thread


@dataclass(frozen=True)
class LaneDone:
    """A lane's rotation, done: its parts (for the next one) and its outcome, unfolded."""

    parts: LaneParts
    attempt: Attempt
    outcome: Outcome


@dataclass(frozen=True)
class Running:
    """A lane with a rotation under way (or just ended): the coordinator's own."""

    lane: Lane
    spec: Spec
    stop: threading.Event  # set: its agent stops now
    future: Future[LaneDone]


def lane_parts(run: Shared, work: LaneTurn) -> LaneParts:
    """The lane's rotation and repository: the run's workspace (handoffs, history, worklog
    and the tests' baseline are the run's), with the files of its own under
    `.ralph/lanes/<name>/`."""
    name, worktree, note = work.name, work.worktree, work.note
    folder = run.ws.dir / "lanes" / name
    make_dirs(folder)  # `.ralph/lanes` a planted link: refused, never followed

    def news(**info: Any) -> None:
        note(name, info)

    def record_agent(pid: int) -> None:
        news(agent_pid=pid, agent_started=started_at(pid))

    notes = LaneNotes(run.ws, worktree, run.redactor.text)
    place = Place(
        worktree, folder / "prompt.md", folder / "current.log", news, record_agent, name, notes
    )
    tree = Tree(worktree, folder / "snapshot.json", (), run.git)
    gate = partial(
        DoneGate,
        worktree,
        run.ws,
        changed=tree.changed,
        test_globs=run.opts.test_globs,
        project=run.opts.config,
        launcher=run.opts.launcher,
        lock=run.git,
    )
    rotation = Rotation(run, place, tree, gate)
    tree.begin()  # what the lane's agents add or change from here is theirs
    return LaneParts(rotation, repo(worktree, run.git))


def rotate(run: Shared, work: LaneTurn) -> LaneDone:
    """In the lane's thread: one rotation in its worktree (made first when it is new), then
    its work committed when its DONE counted. The outcome is returned unfolded: the
    coordinator folds it into the run's state.

    Only counted work becomes the lane's base: a refused DONE's work (or unfinished work)
    stays uncommitted in the worktree, as in the project's own tree, so the agent's
    `git checkout -- FILE` returns to the last work that counted, never to refused work."""
    parts = work.parts
    if parts is None:
        if work.opening is not None:
            work.opening()
        parts = lane_parts(run, work)
    rotation, turn = parts.rotation, work.turn
    before = rotation.tree.take()
    attempt = rotation.attempt(turn)
    outcome = rotation.settle(attempt, before)  # folded, and written, by the coordinator
    if outcome.signal == "DONE":  # counted (a refused one is REFUSED): what it was judged on
        commit_all(
            parts.repo,
            f"ralph: rotation {turn.iteration} on {turn.spec.path} ({outcome.signal})",
        )
    return LaneDone(parts, attempt, outcome)


@contextmanager
def meanwhile(work: Callable[[], None]) -> Iterator[None]:
    """`work` in a thread of its own while the block runs; it has ended when the block has,
    and what it raised is raised then, in the caller's thread."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # raised again in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="lanes-meanwhile")
    thread.start()
    try:
        yield
    finally:
        thread.join()
    if failed:
        raise failed[0]


class LaneNews:
    """run.json's `lanes.<name>`: each lane's news (its rotation, its agent's PID), written
    from the lanes' threads."""

    def __init__(self, run: Shared) -> None:
        self.run = run
        self.lock = threading.Lock()
        self.news: dict[str, dict[str, Any]] = {}

    def note(self, name: str, info: dict[str, Any]) -> None:
        with self.lock:
            self.news.setdefault(name, {}).update(info)
            self.run.note_run(lanes=dict(self.news))

    def forget(self, name: str) -> None:
        """No rotation in this lane any more: `ralph inspect` stops listing it."""
        with self.lock:
            self.news.pop(name, None)
            self.run.note_run(lanes=dict(self.news))
