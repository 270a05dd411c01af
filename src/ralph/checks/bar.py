"""The bar a spec's tests must hold, measured by ralph before the agent's first rotation.

Each distinct `test_command` of the specs to run runs once, where the DONE checks run
(`DoneGate.place`); what ran then becomes each spec's `best_tests` in the state. A
first DONE so no longer sets the bar: an agent that deletes or skips tests before it is
refused like any later drop. The cost: one test run per command at the start of a run that
needs it (see `to_measure`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ralph.checks.command import run_command
from ralph.checks.recognised import UNRECOGNISED
from ralph.checks.records import BarMeasured
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State
from ralph.rules.evidence.testcounts import TestCounts, merged_bar
from ralph.rules.evidence.testsummary import READ
from ralph.rules.text.words import plural
from ralph.specs.checkconfig import ExternalConfig
from ralph.specs.frontmatter import SpecMeta

if TYPE_CHECKING:
    from ralph.checks.gate import DoneGate
    from ralph.checks.place import CheckPlace

BAR_CHECK = "test_command (the bar at the start)"


@dataclass(frozen=True)
class Measured:
    command: str
    specs: tuple[str, ...]
    counts: TestCounts | None  # None: the run printed no summary ralph reads
    summary: str  # the check's own summary (exit code, counts, why it failed)
    interrupted: bool = False
    seconds: float = 0.0  # how long it ran: ralph's checks' time

    def line(self) -> str:
        """One line for the run's notices."""
        which = ", ".join(self.specs)
        if self.counts is None:
            return (
                f"tests' bar of {which}: `{self.command}` printed no test summary ralph reads "
                f"(no bar): make it print one ({READ}), or write a JUnit XML report and name "
                "it `test_report:` in the spec's front matter"
            )
        counts, ran = self.counts, self.counts.executed
        if ran == 0:  # nothing to hold a DONE to but the command itself
            return (
                f"tests' bar of {which}: no test ran before the first rotation "
                f"({counts.describe()}); a DONE needs its tests to run and pass"
            )
        if counts.passed == 0:  # an error collecting the tests reads as a failure
            return (
                f"tests' bar of {which}: no test passed before the first rotation "
                f"({plural(counts.failed, 'test')} failed or could not be collected, "
                f"{counts.skipped} skipped); a DONE needs at least {ran} passing"
            )
        return (
            f"tests' bar of {which}: {plural(ran, 'test')} ran before the first rotation "
            f"({counts.describe()}); a DONE needs at least {ran} passing"
        )


def to_measure(
    specs: Sequence[tuple[Spec, SpecMeta | None]], state: State, *, tests_edited: bool
) -> dict[tuple[str, float], list[str]]:
    """(command, timeout) -> the specs it is the test command of, for the specs whose bar is
    measured now: those without one yet, those a person changed, and all of them when a person
    edited the tests while ralph was not running. A `--continue` of a run whose specs have
    their bar runs nothing."""
    out: dict[tuple[str, float], list[str]] = {}
    for spec, meta in specs:
        if meta is None or not meta.test_command or not meta.gates_done:
            continue
        row = state.get(spec.path)
        known = row is not None and row.best_tests is not None
        if known and not tests_edited and row is not None and row.last_hash == spec.content_hash:
            continue
        out.setdefault((meta.test_command, float(meta.test_timeout)), []).append(spec.path)
    return out


def measure(
    commands: Mapping[tuple[str, float], list[str]],
    place: CheckPlace,
    cancel: threading.Event | None = None,
    on_done: Callable[[Measured], None] | None = None,
) -> list[Measured]:
    """Run each command once where the DONE checks run (room A, synced now), started as
    they are (the run's sandbox); stops at an interruption."""
    folder, env = place.here()
    out: list[Measured] = []
    for (command, timeout), specs in commands.items():
        cfg = ExternalConfig(command=command, timeout=timeout)
        # `room`: a sandbox hides ralph's store, the room included, but for the room a check
        # runs in; without it the sandboxed run found no folder and measured no bar
        res = run_command(
            cfg, folder, env, cancel, name=BAR_CHECK, room=folder, launcher=place.launcher
        )
        found = Measured(command, tuple(specs), res.counts, res.why, res.interrupted, res.seconds)
        out.append(found)
        if on_done is not None:
            on_done(found)
        if res.interrupted:
            break
    return out


def with_bars(
    state: State, found: Sequence[Measured], *, fresh: bool, changed: Iterable[str] = ()
) -> State:
    """The state with each measured spec's bar (`best_tests`; `fresh`: see `merged_bar`). A
    run with no summary leaves the bar as it was, unless a person changed the spec (`changed`:
    its test command may print none now): then it has no bar, and no summary is missed."""
    for m in found:
        if m.interrupted:
            continue
        for path in m.specs:
            row = state.get(path)
            if row is not None and m.counts is None and path in changed:
                state = state.with_spec(replace(row, best_tests=None, tests=None))
            elif row is not None and m.counts is not None:
                bar = merged_bar(row.best_tests, m.counts, fresh=fresh)
                state = state.with_spec(replace(row, best_tests=bar))
    return state


def start_bars(
    gate: DoneGate,
    specs: Sequence[Spec],
    state: State,
    *,
    tests_edited: bool,
    cancel: threading.Event | None = None,
    notify: Callable[[str], None],
) -> State:
    """The state with the bars measured at the start of a run, where the gate's checks run;
    Ctrl-C (or `cancel` set) during the measurement stops the run as it would a rotation."""
    commands = to_measure([(s, gate.meta(s)[0]) for s in specs], state, tests_edited=tests_edited)
    if not commands:
        return state
    if not gate.tests.store.seen():  # what the guard found as the run started
        notify(f"tests' bar: {UNRECOGNISED}")
    runs = f"{len(commands)} test commands" if len(commands) > 1 else "the test command"
    notify(f"measuring the tests' bar: ralph runs {runs} once before the first rotation")

    def measured(m: Measured) -> None:
        gate.record(BarMeasured(m.command, m.specs, m.seconds))  # its time is the run's too
        notify(m.line())

    found = measure(commands, gate.place, cancel, measured)
    if any(m.interrupted for m in found):
        raise KeyboardInterrupt
    changed = [
        s.path for s in specs if (row := state.get(s.path)) and row.last_hash != s.content_hash
    ]
    return with_bars(state, found, fresh=tests_edited, changed=changed)
