"""Running a spec's checks: `run_gate` turns its front matter into checks and runs them by the
registry's methods, phase by phase, into a `GateResult`.

The loop calls it when an agent says DONE; the final verification calls it too, so a
VERIFY_PASS never overrides a failing check. The order: the strict tier's checkbox claim and
the promises (cheap, local); then every command (all run, so the agent learns about all
failures at once; at the same time with `parallel_checks`); then the costly ones (an agent as
judge), only while everything so far passed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.claims import STRICT, Boxes, Claim, VerificationMachine, VState, count_boxes
from ralph.checks.context import (
    ROLES_BY_MODE,
    CheckItem,
    GateInput,
    Phase,
    RoomMaker,
    check_name,
)
from ralph.checks.judge import Judge
from ralph.checks.registry import method_for
from ralph.checks.result import CheckCache, CheckResult, GateResult
from ralph.process.launcher import PLAIN, Launcher
from ralph.specs.checkconfig import StringMatchConfig, command_check
from ralph.specs.frontmatter import SpecMeta, parse_front_matter, split_front_matter
from ralph.store.disk import reader

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig


def run_gate(
    spec_path: str,
    root: Path,
    *,
    spec_text: str | None = None,
    meta: SpecMeta | None = None,
    mode: str = "VERIFY",
    output: str = "",
    prompt: str = "",
    judge: Judge | None = None,
    cache: CheckCache | None = None,
    tree: str | None = None,
    env: Mapping[str, str] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    on_transition: Callable[[VState, VState], None] | None = None,
    cancel: threading.Event | None = None,
    run_root: Path | None = None,
    decisive: bool = True,
    start: Path | None = None,
    rooms: RoomMaker | None = None,
    launcher: Launcher = PLAIN,
    project: RalphConfig | None = None,
) -> GateResult:
    """Run every check of `spec_path` (read from disk unless `spec_text` is given). `cancel`
    set (`ralph cancel --now`) stops the running checks: the verdict is then void. Commands
    run in `run_root` (the clean room, checks/place.py) when given, else in `root`, started
    by `launcher`.

    A spec without front matter passes at once. Bad front matter raises SpecError.
    """
    if spec_text is None:
        spec_text = reader.read_text(
            root / spec_path, limit=reader.TEXT_LIMIT, root=root, follow=True, missing=None
        )
    if meta is None:
        meta = parse_front_matter(spec_path, spec_text)
        if meta is None:
            return GateResult(True)
    gi = GateInput(
        root=root,
        spec_path=spec_path,
        spec_text=spec_text,
        meta=meta,
        mode=mode,
        output=output,
        prompt=prompt,
        judge=judge,
        cache=cache,
        tree=tree,
        env=env,
        on_transition=on_transition,
        cancel=cancel if cancel is not None else threading.Event(),
        run_root=run_root,
        decisive=decisive,
        start=start,
        rooms=rooms,
        launcher=launcher,
        project=project,
    )
    return _GateRun(gi, on_result).run()


def gate_items(meta: SpecMeta, mode: str) -> list[CheckItem]:
    """Every check of the front matter, in the order each phase runs them: the spec's test
    command, its `checks:`, the promise of each role that applies, then the role's own method
    (a string_match role is its promise)."""
    items: list[CheckItem] = []
    cfg = command_check(meta)
    if cfg is not None:
        items.append(CheckItem("test_command", "external", cfg))
    items += [
        CheckItem(check_name(c, meta), c.method, c.config, c.required, c.cache) for c in meta.checks
    ]
    roles = [(n, r) for n in ROLES_BY_MODE.get(mode, ()) if (r := meta.role(n)) is not None]
    items += [
        CheckItem(f"{name}.promise", "string_match", StringMatchConfig(promise=role.promise))
        for name, role in roles
    ]
    items += [
        CheckItem(
            name,
            role.verification_method,
            role.verification_config,
            promise=role.promise,
            role=name,
        )
        for name, role in roles
        if role.verification_method != "string_match"
    ]
    return items


class _GateRun:
    def __init__(self, gi: GateInput, on_result: Callable[[CheckResult], None] | None) -> None:
        self.gi = gi
        self.on_result = on_result
        self.results: list[CheckResult] = []
        self.interrupted = False

    def add(self, result: CheckResult) -> None:
        self.results.append(result)
        if result.interrupted:
            self.interrupted = True
        if self.on_result is not None:
            self.on_result(result)

    def blocked(self) -> bool:
        return self.interrupted or any(r.blocking for r in self.results)

    def dispatch(self, item: CheckItem) -> CheckResult:
        return method_for(item.method).run(self.gi, item, self.dispatch)

    def phase(self, phase: Phase, items: list[CheckItem]) -> list[CheckItem]:
        """The items of `phase`; a role's criteria only while its promise held."""
        failed = {r.name for r in self.results if not r.passed}
        return [
            item
            for item in items
            if method_for(item.method).phase == phase
            and (item.role is None or f"{item.role}.promise" not in failed)
        ]

    def run(self) -> GateResult:
        items = gate_items(self.gi.meta, self.gi.mode)
        if self.gi.meta.verification == STRICT:
            self.add(self.claim())
        for item in self.phase("local", items):
            self.add(self.dispatch(item))
        commands = self.phase("command", items)
        if not self.interrupted:
            for result in self.all_of(commands, parallel=self.gi.meta.parallel_checks):
                self.add(result)
        for item in self.phase("costly", items):
            if self.blocked():
                why = "interrupted" if self.interrupted else "an earlier required check failed"
                self.add(
                    CheckResult(
                        item.name,
                        item.method,
                        False,
                        item.required,
                        f"skipped: {why}",
                        skipped=True,
                    )
                )
                continue
            self.add(self.dispatch(item))
        passed = not self.interrupted and not any(r.blocking for r in self.results)
        return GateResult(passed, tuple(self.results), self.interrupted)

    def all_of(self, items: list[CheckItem], *, parallel: bool) -> list[CheckResult]:
        """Every one of `items` run (at the same time with `parallel`) until one is stopped."""
        if not parallel or len(items) < 2:
            out: list[CheckResult] = []
            for item in items:
                if self.interrupted or any(r.interrupted for r in out):
                    break
                out.append(self.dispatch(item))
            return out
        workers = min(len(items), os.cpu_count() or 2)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ralph-check") as pool:
            futures = [pool.submit(self.dispatch, item) for item in items]
            try:
                return [f.result() for f in futures]
            except KeyboardInterrupt:
                # only the main thread sees Ctrl-C: stop every running check, then report
                self.gi.cancel.set()
                results = [f.result() for f in futures]
                return [replace(r, interrupted=True) for r in results]

    def claim(self) -> CheckResult:
        """The strict tier: DONE claims every acceptance box is ticked; read the disk."""
        path = self.gi.root / self.gi.spec_path

        def read() -> Boxes | None:
            try:
                text = reader.read_text(
                    path, limit=reader.TEXT_LIMIT, root=self.gi.root, follow=True, missing=None
                )
            except FileNotFoundError:
                return None
            try:
                _, body = split_front_matter(text)
            except ValueError:
                body = text
            return count_boxes(body)

        started = time.perf_counter()
        out = VerificationMachine(read, on_transition=self.gi.on_transition).run(Claim())
        seconds = time.perf_counter() - started
        if out.passed:
            return CheckResult(
                "checkboxes", "strict", True, summary="every box ticked", seconds=seconds
            )
        return CheckResult(
            "checkboxes", "strict", False, summary=out.details or "", seconds=seconds
        )
