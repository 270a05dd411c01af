"""run/options.py: what `ralph run` was asked, as one frozen value named for its agents, with
its defaults (one lane, a final verification, unconfined until the run passes its sandbox)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.process.request import OPEN
from ralph.run.options import RunOptions


def options(*names: str) -> RunOptions:
    pool = tuple(Member(CommandAgent(name, [name])) for name in names)
    return RunOptions(root=Path("proj"), pool=pool, max_iterations=20)


def test_a_run_is_named_for_its_pool() -> None:
    assert options("claude").label == "claude"
    assert options("claude", "codex").label == "claude, codex"


def test_the_defaults_and_the_value_is_frozen() -> None:
    run = options("claude")
    assert (run.parallel, run.final_verification, run.only) == (1, True, ())
    assert run.confined == OPEN and run.secrets == frozenset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.parallel = 2  # type: ignore[misc]
