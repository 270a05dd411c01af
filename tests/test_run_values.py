"""`run/` shares nothing that changes: what is fixed for a run is the frozen `Shared`; the
run's state and the pool are the schedulers' own values, passed to the other parts of the run
and returned by them. And lanes open and close side by side, not one after another."""

from __future__ import annotations

import ast
import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ralph.run
from ralph.errors import ExitCode
from ralph.run import context
from ralph.run.events import Event
from ralph.run.facts import Fact, LaneClosed, VerificationEnded, VerificationStarted
from ralph.run.start import run_loop
from ralph.store import git
from ralph.store import worktrees as wt
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.test_run_schedulers import TWO, WORK, options

RUN = Path(ralph.run.__file__).parent
SCHEDULERS = {"loop.py": "SpecRun", "lanes.py": "LaneRun"}
RUN_VALUES = {"state", "pool", "member", "answer", "limit"}  # what changes during a run


def _writes(tree: ast.AST) -> list[tuple[str, str, str]]:
    """(class, object, attribute) of each assignment to an attribute in a module."""
    found: list[tuple[str, str, str]] = []

    def visit(node: ast.AST, cls: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.ClassDef) else cls
            targets: list[ast.expr] = []
            if isinstance(child, ast.Assign):
                targets = list(child.targets)
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign)):
                targets = [child.target]
            for target in targets:
                for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(t, ast.Attribute):
                        owner = t.value.id if isinstance(t.value, ast.Name) else "?"
                        found.append((inner, owner, t.attr))
            visit(child, inner)

    visit(tree, "")
    return found


def test_the_run_s_values_are_written_only_by_its_schedulers() -> None:
    wrong = []
    for path in sorted(RUN.glob("*.py")):
        for cls, owner, attr in _writes(ast.parse(path.read_text())):
            if attr not in RUN_VALUES:
                continue
            mine = owner == "self" and SCHEDULERS.get(path.name) == cls
            if not mine:
                wrong.append(f"{path.name}: {cls or '(module)'} writes {owner}.{attr}")
    assert wrong == []


def test_what_is_fixed_for_a_run_is_frozen() -> None:
    assert not hasattr(context, "RunContext")
    assert context.Shared.__dataclass_params__.frozen  # type: ignore[attr-defined]
    names = {f.name for f in dataclasses.fields(context.Shared)}
    assert not names & RUN_VALUES


def test_the_rule_s_check_sees_a_part_that_writes_the_run_s_state() -> None:
    """The check above would see the old shape: a part writing the scheduler's context."""
    old = "class Circuit:\n    def admit(self):\n        self.ctx.state = 1\n        ctx.pool = 2\n"
    writes = _writes(ast.parse(old))
    assert ("Circuit", "?", "state") in writes and ("Circuit", "ctx", "pool") in writes


def test_every_git_command_of_a_lanes_run_holds_the_one_git_lock(project: Project) -> None:
    """A new lane's worktree, a commit, a snapshot's `git status`: none runs while another
    thread holds the lock (lanes never fight over `.git`'s lock files); each goes on once
    it is free."""
    lanes_project(project, TWO)
    repo = wt.repo(project.root)
    done: list[str] = []
    steps: dict[str, Callable[[], object]] = {
        "worktree": lambda: wt.add_worktree(repo, project.root, "one-000000", "HEAD"),
        "status": lambda: git.status(repo),
        "branches": lambda: wt.worktree_branches(repo),
    }

    def run(name: str) -> None:
        steps[name]()
        done.append(name)

    with wt.GIT_LOCK:
        threads = [threading.Thread(target=run, args=(name,)) for name in steps]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(0.3)  # bounded: each would have ended long before, unlocked
        assert done == []
    for thread in threads:
        thread.join(60)
    assert sorted(done) == sorted(steps)
    assert (wt.lane_path(project.root, "one-000000") / "specs" / "a.spec.md").exists()


@pytest.mark.slow  # lanes: its agents run shell commands
def test_merged_lanes_close_while_the_final_verification_runs(project: Project) -> None:
    lanes_project(project, TWO)
    facts: list[Event | Fact] = []
    steps: dict[str, Any] = {**WORK, "VERIFY": [{"run": "sleep 2", "signal": "VERIFY_PASS"}]}
    opts = options(project, steps, parallel=2, watch=facts.append)
    code = run_loop(opts, lambda e: None)
    assert code == ExitCode.OK
    started = next(i for i, f in enumerate(facts) if isinstance(f, VerificationStarted))
    ended = next(i for i, f in enumerate(facts) if isinstance(f, VerificationEnded))
    closed = [i for i, f in enumerate(facts) if isinstance(f, LaneClosed)]
    assert len(closed) == 2
    assert all(started < i < ended for i in closed)  # not after it, one by one
    assert not wt.lanes_folder(project.root).exists()
