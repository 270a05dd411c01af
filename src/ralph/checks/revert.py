"""The `revert` method: the test cases added since the run began must fail on the code as it
was then, and pass now; else "the new tests do not test the change".

The added cases are the test files of the start copy (store/rooms/startcopy.py) against the same
files now (rules/evidence/addedcases.py). The command runs twice, for per-case results
(checks/caseruns.py), in the room "<name>.revert": once holding room A's files (the tree as it
is now), once every file but the tests' as it was at the start (files added since left out),
in a random order. It decides only where a
DONE decides (the one that would reach 3/3, the final verification), and is cached by the
tree's state like a command check.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import replace
from pathlib import Path

from ralph.checks.caseruns import case_run
from ralph.checks.context import CheckItem, Dispatch, GateInput, Phase
from ralph.checks.result import CheckResult
from ralph.errors import ConfigError, RalphError
from ralph.plugins.hookspecs import hookimpl
from ralph.rules.evidence.addedcases import AddedCase, added_cases, beside_tests
from ralph.rules.evidence.junitcases import Outcome, outcomes
from ralph.rules.evidence.reporthooks import forging_names
from ralph.rules.evidence.revertverdict import NOT_TESTED, verdict
from ralph.rules.evidence.testfiles import DEFAULT_GLOBS, is_test
from ralph.specs.checkconfig import RevertConfig
from ralph.store.disk import reader
from ralph.store.person.settings import run_or_accepted
from ralph.store.person.testbaseline import runner_settings
from ralph.store.rooms.room import never_in_room
from ralph.store.rooms.startcopy import changed_since_start

SUFFIX = "revert"
SKIPPED = "skipped: runs only at the DONE that would reach 3/3 and at the final verification"
NO_START = (
    "the code as it was when the run began was not kept (the check was added during the run): "
    "run again after `ralph reset`, or start a new run"
)
FORGED = (
    "test files changed since the run began use {names} ({path}): pytest hooks there can "
    "rewrite the per-case results; take them out of the tests"
)
NO_CODE = f"{NOT_TESTED}: no file but the tests changed since the run began"


class Revert:
    # two test runs: only while every cheaper check passed (a refused DONE costs none)
    phase: Phase = "costly"

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        cfg = item.config
        assert isinstance(cfg, RevertConfig)
        if not gi.decisive:
            return _result(item, True, SKIPPED, skipped=True)
        if gi.start is None or gi.rooms is None:
            return _result(item, False, NO_START)
        command = cfg.command or gi.meta.test_command or ""
        key = json.dumps([gi.spec_path, SUFFIX, cfg.model_dump(), command], sort_keys=True)
        if item.cache and gi.cache is not None:
            hit = gi.cache.get(gi.tree, key)
            if hit is not None:
                return replace(hit, name=item.name, required=item.required, cached=True)
        started = time.perf_counter()
        result = _decide(gi, item, cfg, command, gi.start)
        result = replace(result, seconds=time.perf_counter() - started)
        if item.cache and gi.cache is not None and not result.interrupted:
            gi.cache.put(gi.tree, key, result)
        return result


def _decide(
    gi: GateInput, item: CheckItem, cfg: RevertConfig, command: str, start: Path
) -> CheckResult:
    assert gi.rooms is not None
    # the revert room synced with the tree as it is: room A has had other checks run in it
    # (their leftovers, or tests that rewrote files there, are not the agent's tree)
    now, _ = gi.rooms(SUFFIX, {})
    changed = [p for p in changed_since_start(start, now) if not never_in_room(p)]
    globs = which_tests(gi, start, now)
    tests = {p for p in changed if is_test(p, globs)}
    added = added_cases(_texts(start, tests), _texts(now, tests))
    # the tests' own code stays as it is now too: the test files and what is beside them
    kept = tests | {p for p in changed if beside_tests(p)}
    why = verdict(added, {}, {}) if not added else None
    for path, text in sorted(_texts(now, kept).items()):
        names = forging_names(text)
        if names and why is None:
            why = FORGED.format(names=", ".join(names), path=path)
    # every other file as it was at the start; what was added since left out
    overlay = {p: _bytes(start, start / p) for p in changed if p not in kept}
    if why is None and not overlay:
        why = NO_CODE
    if why is not None:
        return _result(item, False, why)
    # Both runs in the same room, synced between them, in an order drawn at random, with the
    # same files placed anew each time (the tree's mode and times: store/rooms/room.py): a test
    # cannot tell the old code from the new by the room's path, by which run came first or by
    # the files' metadata, only by their bytes.
    placed = {"old": overlay, "now": {p: _bytes(now, now / p) for p in overlay}}
    order = ("old", "now") if secrets.randbelow(2) else ("now", "old")
    runs: dict[str, dict[AddedCase, Outcome]] = {}
    for where in order:
        room, env = gi.rooms(SUFFIX, placed[where])
        env = {**env, "RALPH_SPEC": gi.spec_path, "RALPH_CHECK": item.name}
        ran = case_run(cfg, command, room, env, gi.cancel, name=item.name, launcher=gi.launcher)
        if ran.result.interrupted:
            return replace(ran.result, method=SUFFIX, required=item.required)
        if ran.cases is None or ran.why:
            code = "the code as it is now" if where == "now" else "the code as the run began"
            why = f"no per-case results from the tests on {code}: {ran.why}"
            return replace(_result(item, False, why), output=ran.result.output)
        runs[where] = outcomes(added, ran.cases)
    now_out, old_out = runs["now"], runs["old"]
    why = verdict(added, old_out, now_out)
    if why is not None:
        return _result(item, False, why)
    bites = sum(1 for c in added if old_out.get(c) == "failed")
    return _result(
        item, True, f"{bites} of {len(added)} added test cases fail on the code as the run began"
    )


def which_tests(gi: GateInput, *roots: Path) -> tuple[str, ...]:
    """Which files are tests (as checks/testguard.py reads them): the spec's globs, else
    ralph.yaml's, else the defaults; widened by the runners' settings at the start and now."""
    base = gi.meta.tests.paths
    if base is None:
        try:
            base = run_or_accepted(gi.root, gi.project).tests.paths  # not the agent's edit
        except ConfigError:
            base = None
    found = [*(base if base is not None else DEFAULT_GLOBS)]
    for root in roots:
        found += runner_settings(root)
    return tuple(dict.fromkeys(found))


def _texts(root: Path, paths: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        data = _bytes(root, root / path)
        if data is not None:
            out[path] = data.decode("utf-8", errors="replace")
    return out


def _bytes(root: Path, path: Path) -> bytes | None:
    try:  # the one reader: a link, a pipe or a device is not read
        return reader.read_bytes(path, limit=reader.TEXT_LIMIT, root=root)
    except (OSError, RalphError):
        return None


def _result(item: CheckItem, passed: bool, summary: str, *, skipped: bool = False) -> CheckResult:
    return CheckResult(item.name, SUFFIX, passed, item.required, summary, skipped=skipped)


@hookimpl
def ralph_check_methods() -> dict[str, Revert]:
    return {"revert": Revert()}
