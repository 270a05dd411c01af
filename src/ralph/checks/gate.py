"""The DONE gate of a run: a DONE counts only when the spec's checks pass.

The loop calls `DoneGate` at a few points (which specs are blocked by an iteration cap, what the
prompt says about the checks, and the verdict on a DONE), so loop.py stays a list of steps.
A refused DONE is recorded as REFUSED (counted as CONTINUE): the reasons go to the worklog, the
spec's handoff and the next prompt, and the display shows "DONE refused: ...".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.authorship import agent_change, agent_mark
from ralph.checks.claims import VState
from ralph.checks.judge import AgentJudge
from ralph.checks.records import CheckRan, ClaimMoved, DoneRefused, GateDecided, Record
from ralph.checks.requirements import requirements
from ralph.checks.result import CheckCache, CheckResult, GateResult
from ralph.checks.runner import run_gate
from ralph.errors import SpecError
from ralph.rules.caps import cap_reason
from ralph.rules.spec import Spec
from ralph.rules.state import State
from ralph.specs.frontmatter import SpecMeta, parse_front_matter
from ralph.store.workspace import Workspace

if TYPE_CHECKING:
    from ralph.agents.command import CommandAgent

REFUSED = "REFUSED"
NOTE_REASONS = 3  # reasons shown on the one-line display note


@dataclass(frozen=True)
class Verdict:
    signal: str  # DONE (it counts), REFUSED, or ERROR (interrupted while checking)
    note: str | None  # for the display: "DONE refused: ..." or the warnings of a passed DONE
    interrupted: bool = False
    gate: GateResult | None = None


def validate_front_matter(specs: Sequence[Spec]) -> None:
    """Before a run starts: the first spec whose front matter is invalid, as a SpecError."""
    for spec in specs:
        parse_front_matter(spec.path, spec.text)


class DoneGate:
    def __init__(
        self, root: Path, ws: Workspace, judge_agent: Callable[[], CommandAgent], record: Record
    ):
        self.root = root
        self.ws = ws
        self.judge_agent = judge_agent
        self.record = record  # the run's recorder writes what the gate did
        self.cache = CheckCache()
        self.refusals: dict[str, str] = {}  # spec path -> why its last DONE was refused
        self._metas: dict[tuple[str, str], tuple[SpecMeta | None, str | None]] = {}
        self._reported: set[tuple[str, str]] = set()

    def meta(self, spec: Spec) -> tuple[SpecMeta | None, str | None]:
        """(front matter or None, the error message when it is invalid); parsed once per
        content. A spec whose front matter broke mid-run is not a crash: its DONEs are refused
        until it is fixed."""
        key = (spec.path, spec.content_hash)
        found = self._metas.get(key)
        if found is None:
            try:
                found = (parse_front_matter(spec.path, spec.text), None)
            except SpecError as exc:
                found = (None, exc.message)
            self._metas[key] = found
        return found

    def new_errors(self, specs: Sequence[Spec]) -> list[str]:
        """Front-matter errors not reported yet (a spec broken or added mid-run), once each."""
        out: list[str] = []
        for spec in specs:
            error = self.meta(spec)[1]
            if error is not None and (spec.path, spec.content_hash) not in self._reported:
                self._reported.add((spec.path, spec.content_hash))
                out.append(error)
        return out

    def blocked(self, specs: Sequence[Spec], state: State) -> dict[str, str]:
        """Specs that hit an iteration cap of their front matter, with the reason."""
        out: dict[str, str] = {}
        for spec in specs:
            row = state.get(spec.path)
            if row is None or not row.needs_work:
                continue
            meta = self.meta(spec)[0]
            reason = cap_reason(meta.caps if meta is not None else None, row)
            if reason is not None:
                out[spec.path] = reason
        return out

    def prompt_section(self, spec: Spec, mode: str) -> str:
        """What the agent must know: which checks its DONE must pass, and the last refusal."""
        meta, error = self.meta(spec)
        return requirements(meta, error, mode, self.refusals.get(spec.path))

    def track_front_matter(self, spec: Spec, state: State) -> State:
        """After a rotation: remember front matter the agent wrote (its hash), and forget the
        mark once the front matter on disk is something else (a person changed it)."""
        row = state.get(spec.path)
        if row is None:
            return state
        mark = agent_mark(self.root, spec, row.agent_front_matter)
        return (
            state
            if mark == row.agent_front_matter
            else state.with_spec(replace(row, agent_front_matter=mark))
        )

    def judge_done(
        self,
        spec: Spec,
        *,
        mode: str,
        iteration: int,
        output: str,
        prompt: str,
        tree: Callable[[], str | None],
        handoff: Path,
        agent_front_matter: str | None = None,
        cancel: threading.Event | None = None,
    ) -> Verdict:
        """Run the checks of a spec whose agent said DONE; the verdict on that DONE."""
        meta, error = self.meta(spec)
        if error is None:
            error = agent_change(self.root, spec, agent_front_matter)
        if error is None and meta is None:
            return Verdict("DONE", None)
        if error is not None:
            return self._refuse(spec, iteration, handoff, (f"front matter: {error}",), "")
        assert meta is not None
        if not meta.gates_done:
            return Verdict("DONE", None)

        def on_transition(old: VState, new: VState) -> None:
            self.record(ClaimMoved(iteration, spec.path, old.value, new.value))

        agent = self.judge_agent()
        try:
            gate = run_gate(
                spec.path,
                self.root,
                spec_text=spec.text,
                meta=meta,
                mode=mode,
                output=output,
                prompt=prompt,
                judge=AgentJudge(
                    agent, self.root, self.ws.dir, spec.path, iteration, cancel, self.record
                ),
                cache=self.cache,
                tree=tree(),
                on_result=self._logger(iteration, spec.path),
                on_transition=on_transition,
                cancel=cancel,
            )
        except KeyboardInterrupt:
            gate = GateResult(False, (), interrupted=True)
        self.record(
            GateDecided(
                iteration, spec.path, gate.passed, gate.interrupted, gate.reasons, gate.warnings
            )
        )
        if gate.interrupted:
            return Verdict("ERROR", "interrupted while running the DONE checks", True, gate)
        if not gate.passed:
            return self._refuse(spec, iteration, handoff, gate.reasons, gate.report(), gate)
        self.refusals.pop(spec.path, None)
        ran = [r for r in gate.results if not r.skipped]
        names = ", ".join(r.name + (" (cached)" if r.cached else "") for r in ran)
        note = f"checks passed: {names}" if ran else None
        if gate.warnings:
            note = f"{note}; warnings: {'; '.join(gate.warnings)}"
        return Verdict("DONE", note, False, gate)

    def check_all(
        self, specs: Sequence[Spec], *, iteration: int, tree: Callable[[], str | None]
    ) -> list[tuple[str, GateResult]]:
        """The final verification's view: every spec's checks on the tree as it is (VERIFY
        mode: no promises asked). A VERIFY_PASS must not override a failed one. Specs whose
        front matter is invalid fail; specs without any check are left out."""
        out: list[tuple[str, GateResult]] = []
        key: str | None = None
        for spec in specs:
            meta, error = self.meta(spec)
            if error is not None:
                bad = CheckResult("front matter", "front_matter", False, summary=error)
                out.append((spec.path, GateResult(False, (bad,))))
                continue
            if meta is None or not meta.gates_done:
                continue
            if key is None:
                key = tree()
            gate = run_gate(
                spec.path,
                self.root,
                spec_text=spec.text,
                meta=meta,
                mode="VERIFY",
                judge=AgentJudge(
                    self.judge_agent(),
                    self.root,
                    self.ws.dir,
                    spec.path,
                    iteration,
                    record=self.record,
                ),
                cache=self.cache,
                tree=key,
                on_result=self._logger(iteration, spec.path),
            )
            out.append((spec.path, gate))
            if gate.interrupted:
                break
        return out

    def refuse_rules(
        self, spec: Spec, iteration: int, handoff: Path, pending: Sequence[str]
    ) -> tuple[str, str | None]:
        """A DONE while the ignore rules differ from the ones a person set (the snapshot
        compares by a person's rules, but what decides the verdict is theirs to change)."""
        more = f" (and {len(pending) - 1} more)" if len(pending) > 1 else ""
        reason = (
            f"ignore rules wait for a person: {pending[0]}{more}; a person accepts them with "
            "`ralph accept`, or restore the rule files"
        )
        verdict = self._refuse(spec, iteration, handoff, (reason,), "")
        return verdict.signal, verdict.note

    def _logger(self, iteration: int, path: str) -> Callable[[CheckResult], None]:
        """Each check and its result, for the worklog."""

        def log(result: CheckResult) -> None:
            self.record(CheckRan(iteration, path, result.to_json()))

        return log

    def _refuse(
        self,
        spec: Spec,
        iteration: int,
        handoff: Path,
        reasons: Sequence[str],
        report: str,
        gate: GateResult | None = None,
    ) -> Verdict:
        detail = report or "\n".join(f"- {r}" for r in reasons)
        self.refusals[spec.path] = detail
        self.record(DoneRefused(iteration, spec.path, handoff, detail))
        shown = list(reasons[:NOTE_REASONS])
        if len(reasons) > NOTE_REASONS:
            shown.append(f"and {len(reasons) - NOTE_REASONS} more")
        return Verdict(REFUSED, "DONE refused: " + "; ".join(shown), False, gate)
