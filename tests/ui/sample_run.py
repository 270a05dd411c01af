"""One run as the displays see it: the events the display tests feed them (shared by
tests/ui/test_live.py, test_plain.py and test_panelview.py)."""

from __future__ import annotations

from ralph.rules.text.prompt import Mode
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
)

PROMPT = (SpecRow("PROMPT.md", 0, None, False),)


THREE = (
    SpecRow("PROMPT.md", 3, "DONE", True),
    SpecRow("specs/a.spec.md", 2, "CONTINUE", True),
    SpecRow("specs/b.spec.md", 0, None, False),
)


def started(
    spec: str = "PROMPT.md",
    mode: Mode = "IMPLEMENT",
    *,
    iteration: int = 1,
    max_iterations: int = 20,
    started_at: float = 1000.0,
    matrix: tuple[SpecRow, ...] = PROMPT,
) -> RotationStarted:
    return RotationStarted(
        "demo", spec, mode, iteration, iteration, max_iterations, started_at, matrix
    )


def ended(
    spec: str = "PROMPT.md",
    mode: Mode = "IMPLEMENT",
    *,
    iteration: int = 1,
    signal: str = "DONE",
    files_changed: int = 2,
    done_count: int = 1,
    elapsed: float = 3.14,
    note: str | None = None,
    downgraded: tuple[str, ...] = (),
    matrix: tuple[SpecRow, ...] = PROMPT,
) -> RotationEnded:
    return RotationEnded(
        "demo",
        spec,
        mode,
        iteration,
        iteration,
        20,
        signal,
        files_changed,
        done_count,
        elapsed,
        note,
        downgraded,
        matrix,
    )


def full_run() -> list[Event]:
    after = (SpecRow("PROMPT.md", 1, "DONE", True),)
    return [
        RunStarted("demo", 0, 20, PROMPT),
        started(),
        AgentOutput("stdout", ("working",)),
        ended(matrix=after),
        Notice("warning", "no signal found"),
        RunEnded(1, "max iterations reached", 1, 1, 20, after),
    ]
