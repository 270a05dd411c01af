"""The latency budget for ralph's own work in one rotation (pure: the caller gives the clock).

ralph's accountability work (the tree snapshot and diff, gate bookkeeping, state and log writes)
must stay invisible next to the agent's time. Each rotation gets a budget (3,000 ms by default);
every operation is timed against it, and optional work is skipped once less than 20 % is left.
The agent's own time and the user's check commands are not part of it: they have their own
timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

DEFAULT_BUDGET_MS: Final = 3000.0
OPTIONAL_FLOOR: Final = 0.2  # below this share of the budget left, optional work is skipped


@dataclass
class LatencyBudget:
    total_ms: float = DEFAULT_BUDGET_MS
    clock: Callable[[], float] = time.perf_counter  # seconds
    spent: dict[str, float] = field(default_factory=dict)  # operation -> milliseconds
    skipped: list[str] = field(default_factory=list)

    @property
    def used_ms(self) -> float:
        return sum(self.spent.values())

    @property
    def remaining_ms(self) -> float:
        return self.total_ms - self.used_ms

    @property
    def exceeded(self) -> bool:
        return self.remaining_ms < 0

    def record(self, name: str, elapsed_ms: float) -> None:
        self.spent[name] = self.spent.get(name, 0.0) + elapsed_ms

    @contextmanager
    def operation(self, name: str) -> Iterator[None]:
        """Time the block against the budget (also when it raises)."""
        start = self.clock()
        try:
            yield
        finally:
            self.record(name, (self.clock() - start) * 1000)

    def can_afford(self, estimated_ms: float) -> bool:
        return self.remaining_ms >= estimated_ms

    def should_skip_optional(self) -> bool:
        return self.remaining_ms < self.total_ms * OPTIONAL_FLOOR

    def optional(self, name: str) -> bool:
        """True when optional work `name` may run; otherwise it is noted as skipped."""
        if self.should_skip_optional():
            self.skipped.append(name)
            return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {
            "total_ms": round(self.total_ms, 1),
            "used_ms": round(self.used_ms, 2),
            "remaining_ms": round(self.remaining_ms, 2),
            "ops": {name: round(ms, 2) for name, ms in self.spent.items()},
            "skipped": list(self.skipped),
        }
