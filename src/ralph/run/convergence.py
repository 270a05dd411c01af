"""The convergence watch in a run: each rotation's changed files feed it, and a spec whose
REVIEW rotations keep changing files is escalated (Accept / Abort / Continue, or the headless
choice) instead of spending the run's whole budget on it. The rules are rules/convergence.py."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.errors import ExitCode
from ralph.rules import convergence as rules
from ralph.run.context import RunContext
from ralph.run.escalation import Escalation, apply_choice
from ralph.run.events import Notice
from ralph.run.facts import Escalated


class Convergence:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.streaks: dict[str, rules.Streak] = {}

    def feed(self, spec: str, mode: str, paths: Sequence[str]) -> None:
        """After a rotation of `spec` in `mode` that changed `paths`."""
        self.streaks = rules.watch(self.streaks, spec, mode, paths)

    def escalate_if_stuck(self, spec: str) -> int | None:
        """Ask when `spec` has not converged for `patience` REVIEW rotations; the exit code
        when the run ends (Abort), None when it goes on."""
        ctx = self.ctx
        streak = self.streaks.get(spec, ())
        if not rules.stuck(streak, ctx.opts.patience):
            return None
        reasons = rules.reasons(streak)
        ctx.emit(Notice("warning", f"{spec} is not converging: {'; '.join(reasons)}"))
        e = Escalation(spec, len(streak), reasons, 0.0, kind="convergence")
        choice = ctx.decide(e)
        self.streaks.pop(spec, None)  # Continue: asked again after `patience` more
        ctx.state = apply_choice(ctx.state, e, choice)
        ctx.save()
        ctx.emit(Escalated(e.key, e.subject, choice, e.failures, reasons, kind="convergence"))
        if choice == "abort":
            return ctx.end(
                ExitCode.NEEDS_HUMAN,
                f"{spec} is not converging ({reasons[0]}); partial work kept",
            )
        if choice == "accept":
            ctx.emit(Notice("warning", f"{spec} accepted as verified by the user"))
        else:
            ctx.emit(Notice("warning", f"going on with {spec} although it is not converging"))
        return None
