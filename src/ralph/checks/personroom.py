"""Room B: the person's tests, as they last left them (checks/persontests.py), run once more
against the agent's code after room A passed, when the agent changed the tests.

The room is the place's (checks/place.py), passed in: "<name>.person", room A's files with the
person's tests and test configuration placed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from ralph.checks.context import GateInput
from ralph.checks.persontests import person_overlay
from ralph.checks.registry import method_for
from ralph.checks.result import CheckResult, GateResult
from ralph.checks.runner import gate_items
from ralph.checks.testguard import TestGuard
from ralph.process.treecode import TreeCode
from ralph.specs.checkconfig import ExternalConfig

PERSON_SUFFIX = ".person"
PERSON_FAILED = "the tests as a person last left them fail against this code"

Room = Callable[[Mapping[str, bytes | None]], tuple[Path, TreeCode]]


def person_gate(
    gate: GateResult,
    gi: GateInput,
    tests: TestGuard,
    room: Room,
    on_result: Callable[[CheckResult], None] | None = None,
) -> GateResult:
    """After room A passed: the person's tests against this code (room B, built by `room`), at
    most once; `gate` with the failed check added when they fail. Each run there is recorded
    (`on_result`: the worklog) as "<check> (person's tests)". `gi`: the gate's input (its
    `tree` is room A's key)."""
    if not gate.passed:
        return gate
    failed = _person_check(gate, gi, tests, room, on_result or (lambda _: None))
    if failed is None:
        return gate
    return GateResult(False, (*gate.results, failed), failed.interrupted)


def _person_check(
    gate: GateResult,
    gi: GateInput,
    tests: TestGuard,
    room: Room,
    on_result: Callable[[CheckResult], None],
) -> CheckResult | None:
    """The checks of `gate` that ran tests (their result has counts) once more in room B, when
    the agent changed the tests since the person's baseline; the first that fails (or is
    interrupted), None when every one passed or there was nothing to run again."""
    # the spec's test command always (a runner script turned into `echo` prints no
    # counts), and every other check that ran tests
    ran = {
        r.name
        for r in gate.results
        if not r.skipped and (r.counts is not None or r.name == "test_command")
    }
    items = [
        i
        for i in gate_items(gi.meta, gi.mode)
        if i.name in ran and isinstance(i.config, ExternalConfig)
    ]
    commands = [i.config.command for i in items if isinstance(i.config, ExternalConfig)]
    overlay = person_overlay(gi.root, tests, commands) if commands else {}
    if not overlay:
        return None
    path, code = room(overlay)
    key = None
    if gi.tree is not None:  # the check cache's key: room B is a tree of its own
        data = sorted(
            (p, None if b is None else hashlib.sha256(b).hexdigest()) for p, b in overlay.items()
        )
        key = gi.tree + ":person:" + hashlib.sha256(json.dumps(data).encode()).hexdigest()
    b_input = replace(gi, run_root=path, env=code.env, tree=key)
    for item in items:
        result = method_for(item.method).run(b_input, item, lambda i: _never(i.name))
        result = replace(result, name=f"{item.name} (person's tests)")
        if result.interrupted or not result.passed:
            summary = f"{PERSON_FAILED} ({item.name}: {result.summary})"
            result = replace(result, summary=summary)
        on_result(result)
        if result.interrupted or not result.passed:
            return result
    return None


def _never(name: str) -> CheckResult:
    raise AssertionError(f"an external check dispatches nothing ({name})")
