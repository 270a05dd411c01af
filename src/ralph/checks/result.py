"""What a check run gives: one check's result, a gate's verdict, and the cache by tree state."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from ralph.checks.records import JudgeSpent
from ralph.rules.evidence.firsterror import with_error
from ralph.rules.evidence.runrecord import RunRecord
from ralph.rules.evidence.testcounts import TestCounts, total


@dataclass(frozen=True)
class CheckResult:
    name: str
    method: str  # string_match, external, semantic, multi_stage, strict (the checkbox claim)
    passed: bool
    required: bool = True
    summary: str = ""  # one line: why it passed or failed
    output: str = ""  # the end of a command's output (failed checks only)
    cached: bool = False
    skipped: bool = False  # not run: not applicable, or an earlier required check failed
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()  # optional stages that failed
    interrupted: bool = False
    counts: TestCounts | None = None  # what a test run did, from the runner's summary
    record: RunRecord | None = None  # pytest's own record of the run (rules/evidence/runrecord.py)
    error: str | None = None  # a failed command's own first error line (checks/failure.py)
    not_installed: str | None = None  # a package it lacks that the tree declares

    @property
    def blocking(self) -> bool:
        return self.required and not self.passed

    @property
    def why(self) -> str:
        """Its summary, and what the command itself said first when it failed."""
        return with_error(self.summary, self.error)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "method": self.method,
            "passed": self.passed,
            "required": self.required,
            "summary": self.summary,
            "cached": self.cached,
            "skipped": self.skipped,
            "seconds": round(self.seconds, 3),
            "warnings": list(self.warnings),
            **({"tests": self.counts.to_json()} if self.counts is not None else {}),
            **({"error": self.error} if self.error else {}),
        }


@dataclass(frozen=True)
class GateResult:
    """The verdict on one DONE: `passed` only when every required check passed."""

    passed: bool
    results: tuple[CheckResult, ...] = ()
    interrupted: bool = False  # Ctrl-C (or a cancel) stopped a check: the verdict is void
    judged: tuple[JudgeSpent, ...] = ()  # what a semantic check's judge spent, even stopped
    # the checks could not run for a reason that is nobody's in the tree (the package index
    # cannot be reached): the run's last line; the DONE is neither counted nor refused
    halted: str | None = None

    @property
    def counts(self) -> TestCounts | None:
        """The test runs of its checks, added up; None when no check ran a known runner."""
        return total(r.counts for r in self.results if r.counts is not None and not r.skipped)

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if r.blocking and not r.skipped)

    @property
    def reasons(self) -> tuple[str, ...]:
        """One line per failed required check: which one, and why."""
        return tuple(f"{r.name}: {r.why}" for r in self.failed)

    @property
    def warnings(self) -> tuple[str, ...]:
        out = [f"{r.name}: {r.why}" for r in self.results if not r.required and not r.passed]
        for r in self.results:
            out.extend(f"{r.name}: {w}" for w in r.warnings)
        return tuple(out)

    def report(self) -> str:
        """The failures with the end of each one's output, for the handoff and the prompt."""
        parts: list[str] = []
        for r in self.failed:
            parts.append(f"- {r.name} ({r.method}): {r.why}")
            if r.output.strip():
                tail = "\n".join(f"      {line}" for line in r.output.rstrip().splitlines())
                parts.append(tail)
        return "\n".join(parts)


@dataclass
class CheckCache:
    """Check results by tree state: an unchanged tree is not re-tested (within a run)."""

    entries: dict[tuple[str, str], CheckResult] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, tree: str | None, key: str) -> CheckResult | None:
        if tree is None:
            return None
        with self.lock:
            return self.entries.get((tree, key))

    def put(self, tree: str | None, key: str, result: CheckResult) -> None:
        if tree is None or result.interrupted:
            return
        with self.lock:
            self.entries[(tree, key)] = result
