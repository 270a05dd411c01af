"""A lane's own parts, made at its first rotation: the place its rotations work in (its
worktree, its prompt file and output log under `.ralph/lanes/<name>/`, its entry in
run.json), its tree and DONE gate; and the lane's thread: one rotation, its work committed.

A lane's thread shares nothing that changes with the coordinator: it reads the state the
coordinator gave its turn, and returns its outcome, which the coordinator folds (run/fold.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.checks.gate import DoneGate
from ralph.process.tree import started_at
from ralph.rules.laneregistry import Lane
from ralph.rules.pool import Pool
from ralph.rules.spec import Spec
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.facts import QuestionAsked
from ralph.run.question import pending, shown, write_fallback_question
from ralph.run.rotation import Rotation
from ralph.run.tree import Tree
from ralph.run.turn import Attempt, Outcome, Place, Turn
from ralph.store.files import make_dirs, read_text
from ralph.store.lanenotes import LaneNotes
from ralph.store.worktrees import commit_all, repo

if TYPE_CHECKING:
    from ralph.store.git import Repo


@dataclass
class LaneWork:
    """One lane's parts, kept for the run. Its rotation and repository are made by the lane's
    own thread at its first rotation (after its worktree, when that is new): lanes open side
    by side, none waits for another's. The coordinator reads them once that rotation is done."""

    name: str
    worktree: Path
    note: Callable[[str, dict[str, Any]], None]  # run.json's news of the lanes
    opening: Callable[[], None] | None = None  # makes its new worktree, in its thread
    stop: threading.Event = field(default_factory=threading.Event)  # stop its agent now
    agent: CommandAgent | None = None  # the agent of its current rotation (its judge differs)
    judges: Pool | None = None  # the pool as its rotation started: its judge comes from it
    parts: tuple[Rotation, Repo] | None = None

    @property
    def rotation(self) -> Rotation:
        assert self.parts is not None  # made by its first rotation, before its outcome
        return self.parts[0]


@dataclass
class Running:
    """A lane with a rotation under way (or just ended)."""

    lane: Lane
    work: LaneWork
    spec: Spec
    future: Future[tuple[Attempt, Outcome]] = field(default_factory=Future)


def lane_parts(run: Shared, work: LaneWork) -> tuple[Rotation, Repo]:
    """The lane's rotation and repository: the run's workspace (handoffs, history, worklog
    and the tests' baseline are the run's), with the files of its own under
    `.ralph/lanes/<name>/`."""
    name, worktree = work.name, work.worktree
    folder = run.ws.dir / "lanes" / name
    make_dirs(folder)  # `.ralph/lanes` a planted link: refused, never followed

    def news(**info: Any) -> None:
        work.note(name, info)

    def record_agent(pid: int) -> None:
        news(agent_pid=pid, agent_started=started_at(pid))

    notes = LaneNotes(run.ws, worktree, run.redactor.text)
    place = Place(
        worktree, folder / "prompt.md", folder / "current.log", news, record_agent, name, notes
    )
    tree = Tree(worktree, folder / "snapshot.json", ())

    def judge() -> CommandAgent:
        return other_agent(run.members, work)

    gate = DoneGate(worktree, run.ws, judge, lambda r: None, run.opts.test_globs)
    rotation = Rotation(run, place, tree, gate)
    gate.record = rotation.record
    start = tree.take()  # what the lane's agents add or change from here is theirs
    gate.changed = lambda: tree.snapshotter.diff(start, tree.take()).paths
    return rotation, repo(worktree)


def rotate(run: Shared, work: LaneWork, turn: Turn) -> tuple[Attempt, Outcome]:
    """In the lane's thread: one rotation in its worktree (made first when it is new), then
    its work committed. The outcome is returned unfolded: the coordinator folds it into the
    run's state."""
    if work.parts is None:
        if work.opening is not None:
            work.opening()
            work.opening = None
        work.parts = lane_parts(run, work)
    rotation, lane_repo = work.parts
    before = rotation.tree.take()
    attempt = rotation.attempt(turn)
    outcome = rotation.settle(attempt, before)  # folded, and written, by the coordinator
    if outcome.changed:  # an unchanged tree has nothing to commit
        commit_all(
            lane_repo,
            f"ralph: rotation {turn.iteration} on {turn.spec.path} ({outcome.signal})",
        )
    return attempt, outcome


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


def other_agent(members: Mapping[str, Member], work: LaneWork) -> CommandAgent:
    """A semantic check's judge in a lane: another available agent of the pool (as the
    lane's rotation started) than the one whose work it judges, when there is one."""
    now = time.time()
    assert work.agent is not None and work.judges is not None  # set with the lane's turn
    judged = work.agent
    others = [s.name for s in work.judges.seats if s.available(now) and s.name != judged.name]
    return members[others[0]].agent if others else judged


def asked(run: Shared, path: str, lane: LaneWork, others: bool) -> str:
    """A lane's agent asked: its question is kept (from its output when it wrote none); the
    run's end reason. The run ends once the running rotations have (`others`: some are);
    until then the displays wait, and the question is shown again last, so no other lane's
    line buries it."""
    if write_fallback_question(run.ws, path, read_text(lane.rotation.place.current_log)):
        run.emit(Notice("warning", "the agent did not write .ralph/question.md; saved its output"))
    run.emit(QuestionAsked(path))
    question = shown(pending(run.ws) or "")
    notice = Notice("warning", f"question from the agent on {path}:\n{question}")
    run.emit(notice)
    if others:
        run.sink.hold(again=notice)
    return (
        f"the agent has a question on {path} (.ralph/question.md): write your answer to "
        ".ralph/answer.md and run ralph again"
    )
