"""What the DONE gate tells the run: each check it ran, each move of a claim, its verdict, and a
refusal's note to the agent. The gate writes no file; the run's recorder writes these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.agents.result import Usage


@dataclass(frozen=True)
class CheckRan:
    iteration: int
    spec: str | None  # None: a check of the whole project, run in the final verification
    outcome: dict[str, Any]  # CheckResult.to_json()


@dataclass(frozen=True)
class ClaimMoved:
    """The strict tier's claim moved from one state to another."""

    iteration: int
    spec: str
    from_state: str
    to_state: str


@dataclass(frozen=True)
class GateDecided:
    iteration: int
    spec: str
    passed: bool
    interrupted: bool
    reasons: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class DoneRefused:
    """A DONE the checks refused: `detail` is what the agent reads in its handoff note."""

    iteration: int
    spec: str
    handoff: Path
    detail: str


@dataclass(frozen=True)
class JudgeSpent:
    """A semantic check's judge ran: what the call cost counts like any rotation's."""

    iteration: int
    spec: str
    agent: str
    usage: Usage | None  # None: the judge's agent reported nothing


@dataclass(frozen=True)
class BarMeasured:
    """A test command run for the tests' bar at a run's start (checks/bar.py): ralph's checks'
    time outside any rotation, counted in the run's "ralph's checks" time."""

    command: str
    specs: tuple[str, ...]
    seconds: float


GateRecord = CheckRan | ClaimMoved | GateDecided | DoneRefused | JudgeSpent | BarMeasured
GATE_RECORDS = (CheckRan, ClaimMoved, GateDecided, DoneRefused, JudgeSpent, BarMeasured)
Record = Callable[[GateRecord], None]
