"""The convergence watch in a run: each rotation's changed files feed it, and a spec whose
REVIEW rotations keep changing files is escalated (Accept / Abort / Continue, or the headless
choice) instead of spending the run's whole budget on it. The rules are
rules/counts/convergence.py."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.rules.counts import convergence as rules
from ralph.rules.counts.state import State
from ralph.rules.counts.stops import Stop
from ralph.run.context import Shared
from ralph.run.escalation import Escalation, apply_choice
from ralph.run.events import Notice
from ralph.run.facts import Escalated


class Convergence:
    """The watch keeps each spec's streak (its own); the state it escalates on is passed."""

    def __init__(self, run: Shared) -> None:
        self.run = run
        self.streaks: dict[str, rules.Streak] = {}

    def feed(self, spec: str, mode: str, paths: Sequence[str]) -> None:
        """After a rotation of `spec` in `mode` that changed `paths`."""
        self.streaks = rules.watch(self.streaks, spec, mode, paths)

    def escalate_if_stuck(self, state: State, spec: str) -> tuple[State, Stop | None]:
        """Ask when `spec` has not converged for `patience` REVIEW rotations; the state after,
        and how the run ends (Abort: its scheduler says the end once no rotation runs), None
        when it goes on. Its scheduler saves the state."""
        run = self.run
        streak = self.streaks.get(spec, ())
        if not rules.stuck(streak, run.opts.config.convergence.patience):
            return state, None
        reasons = rules.reasons(streak)
        run.emit(Notice("warning", f"{spec} is not converging: {'; '.join(reasons)}"))
        e = Escalation(spec, len(streak), reasons, 0.0, kind="convergence")
        choice = run.decide(e)
        self.streaks.pop(spec, None)  # Continue: asked again after `patience` more
        state = apply_choice(state, e, choice)
        run.emit(Escalated(e.key, e.subject, choice, e.failures, reasons, kind="convergence"))
        if choice == "abort":
            return state, Stop(
                "NEEDS_HUMAN", f"{spec} is not converging ({reasons[0]}); partial work kept"
            )
        if choice == "accept":
            run.emit(Notice("warning", f"{spec} accepted as verified by the user"))
        else:
            run.emit(Notice("warning", f"going on with {spec} although it is not converging"))
        return state, None
