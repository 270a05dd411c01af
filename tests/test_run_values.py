"""`run/` shares nothing that changes: what is fixed for a run is the frozen `Shared`; the
run's state and the pool are the schedulers' own values, passed to the other parts of the run
and returned by them. And lanes open and close side by side, not one after another."""

from __future__ import annotations

import ast
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import ralph.run
from ralph.run import context
from ralph.store.repository import git
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import GitLock
from ralph.store.snapshots.snapshotter import Snapshotter
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_start import TWO

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
    lock = GitLock()  # the run's one lock (Shared.git), passed to each place that finds a repo
    repo = wt.repo(project.root, lock)
    done: list[str] = []
    steps: dict[str, Callable[[], object]] = {
        "worktree": lambda: wt.add_worktree(repo, project.root, "one-000000", "HEAD"),
        "status": lambda: git.status(repo),
        "branches": lambda: wt.worktree_branches(repo),
        "snapshot": lambda: Snapshotter(project.root, lock=lock).take(),
    }
    # not a global: a repository found with a lock of its own (outside the run) goes on
    with lock:
        assert git.status(wt.repo(project.root, GitLock())) is not None

    def run(name: str) -> None:
        steps[name]()
        done.append(name)

    with repo.lock:
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


def test_state_json_is_written_from_one_place_the_scheduler_s_state_file() -> None:
    """In a run, only run/ledger.StateFile writes state.json: the merger and the final
    verification save through the scheduler's, lent to them, never by a save of their own."""
    writers = [p.name for p in sorted(RUN.glob("*.py")) if "save_state(" in p.read_text()]
    assert writers == ["ledger.py"]
    ledger = ast.parse((RUN / "ledger.py").read_text())
    calls = [
        cls
        for cls in ledger.body
        if isinstance(cls, ast.ClassDef)
        for node in ast.walk(cls)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "save_state"
    ]
    assert [c.name for c in calls] == ["StateFile"]
    assert not hasattr(context.Shared, "save")  # the run's fixed part writes no state


def test_a_rotation_holds_no_per_rotation_value() -> None:
    """What a judge spent comes back in the gate's verdict (GateResult.judged), as a value:
    a rotation writes none of its own attributes once it is built."""
    writes = _writes(ast.parse((RUN / "rotation.py").read_text()))
    assert {attr for cls, owner, attr in writes if owner == "self"} == {
        "run",
        "place",
        "tree",
        "gate",
    }


def test_the_circuit_keeps_no_flag_between_two_calls() -> None:
    """Whether an outcome opened the breaker is read from the breaker before and after it;
    the circuit writes nothing of its own after it is built."""
    writes = _writes(ast.parse((RUN / "circuit.py").read_text()))
    assert {attr for _, owner, attr in writes if owner == "self"} == {"run", "rule"}


def test_a_process_request_always_says_where_it_starts() -> None:
    """No process-wide sandbox: each request carries its confinement, and a request without
    one is refused at once (a caller cannot forget it)."""

    from ralph.process import containment
    from ralph.process.request import OPEN, ProcessRequest

    with pytest.raises(TypeError):
        ProcessRequest(argv=("true",), cwd=Path(), env={})  # type: ignore[call-arg]
    assert ProcessRequest(argv=("true",), cwd=Path(), env={}, confined=OPEN).confined.box is None
    assert not hasattr(containment, "active") and not hasattr(containment, "contain")
