"""pytest's own record of a check's run, judged (pure): what ended, what it counted.

Every pytest a check starts in a clean room loads ralph's plugin (checks/pytestrecord.py),
whose outermost session records itself when it starts, when it has collected, and when it
ends. The run's result is that record, never a line the code under test could print: a
session that started and never ended stopped inside the run (`os._exit` in a test, a signal,
a crash), and one that ended having run to their end fewer tests than it collected, with
none failed, was stopped early (`pytest.exit`) and proves nothing of the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ralph.rules.evidence.testcounts import TestCounts

RUNNER = "pytest"
STOPPED = (
    "pytest stopped before its end ({stage}): its own record of the session never ended "
    "(os._exit, a signal or a crash inside the run), whatever the run printed"
)
SHORT = "pytest ran {ran} of the {collected} tests it collected to their end, and none failed"
COLLECT_ONLY = "ran no test: it only collected them (pytest --collect-only)"
UNREADABLE = "pytest's record of the run cannot be read"


@dataclass(frozen=True)
class RunRecord:
    """What pytest's sessions of one run recorded, added up."""

    counts: TestCounts
    collected: int | None  # None: a session never finished collecting
    ran: int  # tests that reached their teardown
    errors: int  # collection errors (a module that failed to import)
    refusal: str | None = None  # why the run is no evidence, or None

    @property
    def broken(self) -> bool:
        """It never got as far as running what it collected: a collection error (an import
        that failed), or it never finished collecting."""
        return self.collected is None or self.errors > 0


def judged(records: Iterable[Mapping[str, object] | None]) -> RunRecord | None:
    """The record of a run from its sessions' (None: one that cannot be read); None when no
    pytest session recorded itself (no pytest ran, or not with ralph's plugin)."""
    out: RunRecord | None = None
    for data in records:
        one = _one(data)
        if out is None:
            out = one
            continue
        both = (out.collected, one.collected)
        collected = None if None in both else sum(n or 0 for n in both)
        out = RunRecord(
            out.counts + one.counts,
            collected,
            out.ran + one.ran,
            out.errors + one.errors,
            out.refusal or one.refusal,
        )
    return out


def _one(data: Mapping[str, object] | None) -> RunRecord:
    numbers = {
        key: value
        for key in ("passed", "failed", "skipped", "ran", "errors")
        if data is not None and isinstance(value := data.get(key), int) and value >= 0
    }
    stage = data.get("stage") if data is not None else None
    collected = data.get("collected") if data is not None else None
    if len(numbers) < 5 or stage not in ("started", "collected", "ended"):
        return RunRecord(TestCounts(runners=(RUNNER,)), None, 0, 0, UNREADABLE)
    counts = TestCounts(
        numbers["passed"], numbers["failed"] + numbers["errors"], numbers["skipped"], (RUNNER,)
    )
    known = collected if isinstance(collected, int) and stage != "started" else None
    refusal = None
    if stage != "ended":
        refusal = STOPPED.format(stage=f"it had {stage}")
    elif data is not None and data.get("collect_only") is True:
        refusal = COLLECT_ONLY
    elif known is not None and not counts.failed and numbers["ran"] < known:
        refusal = SHORT.format(ran=numbers["ran"], collected=known)
    return RunRecord(counts, known, numbers["ran"], numbers["errors"], refusal)
