"""The DONE gate of a run: a DONE counts only when the spec's checks pass.

The loop calls `DoneGate` at a few points (which specs are blocked by an iteration cap, what the
prompt says about the checks, and the verdict on a DONE), so loop.py stays a list of steps.
A refused DONE is recorded as REFUSED (counted as CONTINUE): the reasons go to the worklog, the
spec's handoff and the next prompt, and the display shows "DONE refused: ...".
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.authorship import agent_change
from ralph.checks.claims import VState
from ralph.checks.evidence import fell_behind
from ralph.checks.hint import PERSON, hint_for
from ralph.checks.judge import AgentJudge
from ralph.checks.loaded import loaded
from ralph.checks.place import CheckPlace, Ran
from ralph.checks.records import CheckRan, ClaimMoved, DoneRefused, GateDecided, Record
from ralph.checks.requirements import requirements
from ralph.checks.result import CheckCache, CheckResult, GateResult
from ralph.checks.sealed import has_sealed
from ralph.checks.sharedtests import shared_tests
from ralph.checks.specset import specs_refusal
from ralph.checks.testguard import TestGuard, refusal
from ralph.errors import SpecError, docs_page
from ralph.process.launcher import Launcher
from ralph.rules.counts.caps import capped
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.specset import Digests
from ralph.rules.counts.state import MAX_COUNT, SpecState, State
from ralph.rules.evidence.testcounts import TestCounts
from ralph.specs.frontmatter import SpecMeta, parse_front_matter
from ralph.store.disk.workspace import Workspace
from ralph.store.repository.git import GitLock
from ralph.store.rooms.startcopy import WANTED

if TYPE_CHECKING:
    from ralph.agents.command import CommandAgent
    from ralph.store.person.config import RalphConfig

REFUSED = "REFUSED"
INTERRUPTED = "interrupted while running the DONE checks"
NOTE_REASONS = 3  # reasons shown on the one-line display note
FRONT_MATTER_HINT = f"fix the YAML between the --- lines ({docs_page('reference/front-matter.md')})"
AGENT_FRONT_MATTER_HINT = "accept the agent's change with `ralph accept`, or restore it"
SPECS_HINT = "restore the spec (git checkout), or accept the change with `ralph accept`"


@dataclass(frozen=True)
class Verdict:
    signal: str  # DONE (it counts), REFUSED, or ERROR (interrupted while checking)
    note: str | None  # for the display: "DONE refused: ..." or the warnings of a passed DONE
    interrupted: bool = False
    gate: GateResult | None = None
    notice: str | None = None  # one line for the run's output (checks/sharedtests.py)
    counts: TestCounts | None = None  # the test counts of the checks that ran
    best: bool = False  # ...and they hold the best run (they did not fall behind)
    halted: str | None = None  # the checks could not run, nobody's fault in the tree: the end


def validate_front_matter(specs: Sequence[Spec]) -> None:
    """Before a run starts: the first spec whose front matter is invalid, as a SpecError."""
    for spec in specs:
        parse_front_matter(spec.path, spec.text)


class DoneGate:
    def __init__(
        self,
        root: Path,
        ws: Workspace,
        record: Record,
        changed: Callable[[], Sequence[str]],
        test_globs: Sequence[str] | None = None,
        *,
        launcher: Launcher,
        lock: GitLock | None = None,
        project: RalphConfig | None = None,  # ralph.yaml as the run read it (None: accepted)
    ):
        self.root = root
        self.tests = TestGuard(root, ws.dir, test_globs, lock=lock, project=project)  # may grow
        self.ws = ws
        # the clean room command checks run in, and how they start (the run's sandbox)
        self.place = CheckPlace(root, ws.root, launcher, lock)
        self.record = record  # the run's recorder writes what the gate did
        self.cache = CheckCache()
        self.refusals: dict[str, str] = {}  # spec path -> why its last DONE was refused
        self._metas: dict[tuple[str, str], tuple[SpecMeta | None, str | None]] = {}
        self._reported: set[tuple[str, str]] = set()
        self._told: set[tuple[str, str]] = set()  # (spec, its shared test command) said once
        self.changed = changed  # the paths the agents changed since the run (or lane) began

    def meta(self, spec: Spec) -> tuple[SpecMeta | None, str | None]:
        """(front matter or None, the error message when it is invalid), once per content. A
        spec whose front matter broke mid-run is no crash: its DONEs are refused till fixed."""
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
        return capped({s.path: m.caps if (m := self.meta(s)[0]) else None for s in specs}, state)

    def prompt_section(self, spec: Spec, mode: str) -> str:
        """What the agent must know: which checks its DONE must pass, and the last refusal."""
        meta, error = self.meta(spec)
        return requirements(meta, error, mode, self.refusals.get(spec.path))

    def keep_tests(self, spec: Spec, changed: Sequence[str], state: State) -> None:
        """Once a rotation is in the state: what it changed of the tests is what ralph has
        seen (and the baseline, for a person's front matter saying `tests: {may_change: true}`)."""
        meta, row = self.meta(spec)[0], state.get(spec.path)
        may = meta is not None and meta.tests.may_change
        mark = row.agent_front_matter if row is not None else None
        trusted = may and agent_change(self.root, spec, mark) is None
        with contextlib.suppress(OSError):  # nothing may stop the rotation's outcome being saved
            self.tests.after_rotation(changed, may_change=trusted)

    def start_tests(self, specs: Sequence[Spec]) -> tuple[list[str], bool]:
        """When the run starts: the tests of the project and of every spec, as a person left
        them, are the baseline (TestGuard.start)."""
        for spec in specs:
            meta = self.meta(spec)[0]
            if meta is not None:  # its test globs, and the runner scripts of its commands
                self.tests.widen(meta.tests.paths or (), meta.own_commands)
        metas = [self.meta(s)[0] for s in specs]
        # what of the tree is a person's (a room copies no other), and the code as the run
        # began when a check will ask what the agent's work changed
        wanted = any(c.method in WANTED for m in metas if m for c in m.checks)
        # the environments the checks will use, copied: only when some check will run
        checks = any(m is not None and m.gates_done for m in metas) or any(
            has_sealed(self.ws.root, s.path) for s in specs
        )
        self.place.start(copy=wanted, keep=self.tests.store.running, envs=checks)
        return self.tests.start()

    def weakened_tests(self, spec: Spec, *, full: bool = False) -> tuple[str, ...]:
        """Why the tests bar a DONE of `spec` (the refusal's reasons), or () when they do not."""
        meta = self.meta(spec)[0]
        if meta is not None and meta.tests.may_change:
            return ()
        found = self.tests.findings(meta.tests.paths if meta is not None else None, full=full)
        return refusal(found) if found else ()

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
        judge: CommandAgent,
        row: SpecState | None = None,
        cancel: threading.Event | None = None,
        person_specs: Digests | None = None,
    ) -> Verdict:
        """Run the checks of a spec whose agent said DONE; the verdict on that DONE. `judge`:
        the agent that judges its semantic checks (another than the coder, when it can)."""
        waits = specs_refusal(person_specs, self.root, spec.path)
        if waits is not None:  # fewer or weaker specs than a person wrote: nothing verifies
            return self._refuse(spec, iteration, handoff, (waits,), "", hint=SPECS_HINT)
        meta, error = self.meta(spec)
        if error is None:
            error = agent_change(self.root, spec, row.agent_front_matter if row else None)
        if error is not None:
            hint = (
                None  # it says so itself
                if "ralph accept" in error
                else AGENT_FRONT_MATTER_HINT
                if "only a person may change" in error
                else FRONT_MATTER_HINT
            )
            reason = (f"front matter: {error}",)
            return self._refuse(spec, iteration, handoff, reason, "", hint=hint)
        sealed = has_sealed(self.ws.root, spec.path)
        weakened = self.weakened_tests(spec) or loaded(
            self.place, self.changed, self.tests, meta, sealed=sealed
        )
        if weakened:
            self.record(GateDecided(iteration, spec.path, False, False, weakened, ()))
            return self._refuse(spec, iteration, handoff, weakened, "")
        if meta is None or not meta.gates_done:
            if not sealed:
                return Verdict("DONE", None)
            meta = meta or SpecMeta()  # its sealed tests run all the same

        def on_transition(old: VState, new: VState) -> None:
            self.record(ClaimMoved(iteration, spec.path, old.value, new.value))

        judging = AgentJudge(
            *(judge, self.root, self.ws.dir, spec.path, iteration, cancel, self.record),
            confined=self.place.launcher.confined,
        )
        try:
            gate, code = self.place.run(
                self.tests,
                spec,
                meta,
                mode,
                output=output,
                prompt=prompt,
                judge=judging,
                cache=self.cache,
                tree=tree(),
                on_result=self._logger(iteration, spec.path),
                on_transition=on_transition,
                cancel=cancel,
                decisive=row is None or row.done_count >= MAX_COUNT - 1,
            )
        except KeyboardInterrupt:
            gate = GateResult(False, (), interrupted=True)
        gate = replace(gate, judged=tuple(judging.spent))  # what the judge spent: a value
        try:  # a Ctrl-C past the checks: what the judge spent comes back all the same
            self.record(
                GateDecided(
                    iteration, spec.path, gate.passed, gate.interrupted, gate.reasons, gate.warnings
                )
            )
            if gate.interrupted or gate.halted:  # halted: neither counted nor refused, the end
                note = INTERRUPTED if gate.interrupted else f"not judged: {gate.halted}"
                return Verdict("ERROR", note, gate.interrupted, gate, halted=gate.halted)
            return self._decided(spec, meta, iteration, handoff, row, gate, code)
        except KeyboardInterrupt:
            stopped = replace(gate, passed=False, interrupted=True)
            return Verdict("ERROR", INTERRUPTED, True, stopped)

    def _decided(
        self,
        spec: Spec,
        meta: SpecMeta,
        iteration: int,
        handoff: Path,
        row: SpecState | None,
        gate: GateResult,
        code: Ran,
    ) -> Verdict:
        """The verdict on checks that ran to their end: refused (with why, in the handoff), or
        DONE with the test counts it holds."""
        if not gate.passed:
            elsewhere = code.refusal()  # why a correct fix in this tree may still fail
            reasons = (*gate.reasons, elsewhere) if elsewhere else gate.reasons
            report = gate.report() + (f"\n- {elsewhere}" if elsewhere else "")
            refused = self._refuse(spec, iteration, handoff, reasons, report, gate, hint_for(gate))
            said = shared_tests(spec.path, meta.test_command, gate, self._metas, self._told)
            return replace(refused, notice=said)
        counts = gate.counts
        fell = fell_behind(counts, row)  # fewer tests, or no summary where there was one
        if fell is not None:
            refused = self._refuse(spec, iteration, handoff, (f"tests: {fell}",), "", gate)
            return replace(refused, counts=counts)
        self.refusals.pop(spec.path, None)
        ran = [r for r in gate.results if not r.skipped]
        names = ", ".join(r.name + (" (cached)" if r.cached else "") for r in ran)
        note = f"checks passed: {names}" if ran else None
        if gate.warnings:
            note = f"{note}; warnings: {'; '.join(gate.warnings)}"
        return Verdict("DONE", note, False, gate, counts=counts, best=True)

    def check_all(
        self,
        specs: Sequence[Spec],
        *,
        iteration: int,
        tree: Callable[[], str | None],
        judge: CommandAgent,
    ) -> list[tuple[str, GateResult]]:
        """The final verification's view: every spec's checks on the tree as it is (VERIFY
        mode: no promises asked). A VERIFY_PASS must not override a failed one. Specs whose
        front matter is invalid fail; specs without any check are left out."""
        out: list[tuple[str, GateResult]] = []
        key: str | None = None
        for spec in specs:
            meta, error = self.meta(spec)
            weakened = self.weakened_tests(spec, full=True) if error is None else ()
            if error is not None or weakened:
                name, why = ("front matter", error) if error is not None else ("tests", weakened[0])
                bad = CheckResult(name, name.replace(" ", "_"), False, summary=why or "")
                out.append((spec.path, GateResult(False, (bad,))))
                continue
            if meta is None or not meta.gates_done:
                if not has_sealed(self.ws.root, spec.path):
                    continue
                meta = meta or SpecMeta()  # its sealed tests run all the same
            if key is None:
                key = tree()
            judging = AgentJudge(
                *(judge, self.root, self.ws.dir, spec.path, iteration),
                record=self.record,
                confined=self.place.launcher.confined,
            )
            try:
                gate, _ = self.place.run(
                    self.tests,
                    spec,
                    meta,
                    "VERIFY",
                    judge=judging,
                    cache=self.cache,
                    tree=key,
                    on_result=self._logger(iteration, spec.path),
                )
            except KeyboardInterrupt:  # stopped: what its judge spent still counts
                gate = GateResult(False, (), interrupted=True)
            out.append((spec.path, replace(gate, judged=tuple(judging.spent))))
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
        return lambda result: self.record(CheckRan(iteration, path, result.to_json()))

    def _refuse(
        self,
        spec: Spec,
        iteration: int,
        handoff: Path,
        reasons: Sequence[str],
        report: str,
        gate: GateResult | None = None,
        hint: str | None = None,
    ) -> Verdict:
        """Refuse a DONE; the refusal says what a person can do about it (in the reasons, or
        as `hint`), in the handoff, the worklog and the display."""
        detail = report or "\n".join(f"- {r}" for r in reasons)
        if hint is not None:
            detail += f"\n{PERSON}{hint}"
        self.refusals[spec.path] = detail
        self.record(DoneRefused(iteration, spec.path, handoff, detail))
        shown = list(reasons[:NOTE_REASONS])
        if len(reasons) > NOTE_REASONS:
            shown.append(f"and {len(reasons) - NOTE_REASONS} more")
        after = f" ({PERSON}{hint})" if hint is not None else ""
        return Verdict(REFUSED, "DONE refused: " + "; ".join(shown) + after, False, gate)
