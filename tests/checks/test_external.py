"""checks/external.py: a command judged by its exit code and output, cached by the tree's
state; the commands played in-process (tests/fakes/commands.py)."""

from __future__ import annotations

from pathlib import Path

import ralph.checks.external  # noqa: F401 -- the method these tests run through run_gate
from ralph.checks.result import CheckCache
from ralph.checks.runner import run_gate
from tests.fakes.commands import Commands

FRONT = (
    "test_command: pytest -q\n"
    "checks:\n  - name: fresh\n    method: external\n    cache: false\n"
    "    config: {command: fresh}\n"
)


def spec(root: Path, front: str) -> str:
    (root / "a.spec.md").write_text(f"---\n{front}---\n# a\n")
    return "a.spec.md"


def test_an_unchanged_tree_is_not_tested_again(tmp_path: Path) -> None:
    path = spec(tmp_path, FRONT)
    fake = Commands({"pytest -q": (0, ""), "fresh": (0, "")})
    cache = CheckCache()
    first = run_gate(path, tmp_path, cache=cache, tree="tree-1", launcher=fake.launcher)
    again = run_gate(path, tmp_path, cache=cache, tree="tree-1", launcher=fake.launcher)
    changed = run_gate(path, tmp_path, cache=cache, tree="tree-2", launcher=fake.launcher)
    unknown = run_gate(path, tmp_path, cache=cache, tree=None, launcher=fake.launcher)
    assert first.passed and again.passed and changed.passed and unknown.passed
    assert [r.cached for r in again.results] == [True, False]
    assert fake.lines().count("pytest -q") == 3  # tree-1 once, tree-2, no key
    assert fake.lines().count("fresh") == 4  # cache: false always runs


def test_a_cached_failure_stands_for_its_tree_only(tmp_path: Path) -> None:
    path = spec(tmp_path, "test_command: pytest -q\n")
    fake = Commands({"pytest -q": (1, "")})
    cache = CheckCache()
    assert not run_gate(path, tmp_path, cache=cache, tree="t1", launcher=fake.launcher).passed
    fake.plays = {"pytest -q": (0, "")}
    assert not run_gate(path, tmp_path, cache=cache, tree="t1", launcher=fake.launcher).passed
    assert run_gate(path, tmp_path, cache=cache, tree="t2", launcher=fake.launcher).passed


def test_check_commands_know_their_spec_and_name(tmp_path: Path) -> None:
    path = spec(tmp_path, "checks: [{name: envy, method: external, config: {command: envy}}]\n")
    fake = Commands({"envy": (0, "")})
    assert run_gate(path, tmp_path, env={"EXTRA": "x"}, launcher=fake.launcher).passed
    env = fake.ran[0].env
    assert (env["RALPH_SPEC"], env["RALPH_CHECK"], env["EXTRA"]) == ("a.spec.md", "envy", "x")


def test_commands_run_in_the_clean_room_when_there_is_one(tmp_path: Path) -> None:
    room = tmp_path / "room"
    room.mkdir()
    path = spec(tmp_path, "test_command: pytest -q\n")
    fake = Commands({"pytest -q": (0, "")})
    run_gate(path, tmp_path, launcher=fake.launcher)
    run_gate(path, tmp_path, run_root=room, launcher=fake.launcher)
    assert [(r.cwd, r.room) for r in fake.ran] == [(tmp_path, None), (room, room)]


def test_output_it_must_or_must_not_contain(tmp_path: Path) -> None:
    cfg = "{command: lint, output_contains: All clear, output_not_contains: error}"
    path = spec(tmp_path, f"checks: [{{name: lint, method: external, config: {cfg}}}]\n")
    for out, passed in (("All clear\n", True), ("fine\n", False), ("All clear, 1 error\n", False)):
        assert (
            run_gate(path, tmp_path, launcher=Commands({"lint": (0, out)}).launcher).passed
            is passed
        )
