"""pytest's own record of a test run, and no test's name in the environment: a pytest plugin.

This file is not imported by ralph. ralph copies its source into every clean room it runs a
check in, as `ralph_record.py` in a folder of its own there (checks/runrecord.py), first on
`PYTHONPATH`, and loads it with `-p ralph_record` in `PYTEST_ADDOPTS`: every pytest a check
starts in a room loads it, the sealed run's and the ordinary runs' alike.

- `PYTEST_CURRENT_TEST` names no test: pytest sets it to the running test's node id (which
  names a sealed test file the agent never saw); here it holds the same words for every test,
  with the stage (`setup`, `call`, `teardown`) as pytest has it.
- The record: the outermost pytest session of a run (not a nested one a test starts, not an
  xdist worker, whose results reach the controller) writes `session-<pid>.json` beside this
  file when it starts, when it has collected, and when it ends. A run that leaves a record
  that never ended stopped inside the session (`os._exit`, a signal, a crash), whatever it
  printed; the counts of an ended one are pytest's, not a summary line the code could print.

It must run on every Python and pytest ralph supports as a project's: standard library only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HIDDEN = "test::test"  # what PYTEST_CURRENT_TEST names instead of the running test
VARIABLE = "PYTEST_CURRENT_TEST"
OWNER = "RALPH_RECORD_SESSION"  # set by the outermost session: nested ones write no record
HERE = Path(__file__).resolve().parent


def _hide() -> None:
    from _pytest import runner

    if not hasattr(runner, "_update_current_test_var"):
        raise pytest.UsageError(
            "ralph cannot keep PYTEST_CURRENT_TEST from naming the running test on this pytest"
        )

    def update(item: object, when: str | None) -> None:
        if when:
            os.environ[VARIABLE] = f"{HIDDEN} ({when})"
        else:
            os.environ.pop(VARIABLE, None)

    runner._update_current_test_var = update


class _Record:
    def __init__(self, collect_only: bool) -> None:
        self.path = HERE / f"session-{os.getpid()}.json"
        self.collect_only = collect_only  # `--collect-only`: it runs nothing, by design
        self.stage = "started"
        self.collected: int | None = None
        self.errors = 0  # collection errors
        self.outcome: dict[str, str] = {}  # node id -> passed, failed or skipped
        self.ended: set[str] = set()  # node ids whose teardown was reported
        self.exitstatus: int | None = None
        self.write()

    def write(self) -> None:
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for outcome in self.outcome.values():
            counts[outcome] += 1
        data = {
            "stage": self.stage,
            "collected": self.collected,
            "ran": len(self.ended),
            "errors": self.errors,
            "exitstatus": self.exitstatus,
            "collect_only": self.collect_only,
            **counts,
        }
        spare = self.path.with_suffix(".tmp")
        spare.write_text(json.dumps(data), encoding="utf-8")
        spare.replace(self.path)

    def pytest_collectreport(self, report: object) -> None:
        if getattr(report, "failed", False):
            self.errors += 1

    def pytest_collection_finish(self, session: object) -> None:
        if self.collected is None:
            self.collected = len(getattr(session, "items", ()))
            self.stage = "collected"
            self.write()

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's controller: it collects nothing
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.collected = len(ids)  # every worker collects them all
        self.stage = "collected"
        self.write()

    def pytest_runtest_logreport(self, report: object) -> None:
        outcome, when = getattr(report, "outcome", ""), getattr(report, "when", "")
        nodeid = getattr(report, "nodeid", "")
        if outcome == "rerun":  # pytest-rerunfailures: the next attempt decides
            return
        if when == "call" or (when == "setup" and outcome != "passed"):
            self.outcome[nodeid] = outcome if outcome in ("passed", "skipped") else "failed"
        elif outcome == "failed":
            self.outcome[nodeid] = "failed"
        if when == "teardown":
            self.ended.add(nodeid)

    def pytest_sessionfinish(self, session: object, exitstatus: object) -> None:
        self.stage = "ended"
        self.exitstatus = int(exitstatus)  # type: ignore[call-overload]
        self.write()


def pytest_configure(config: pytest.Config) -> None:
    _hide()
    if os.environ.get(OWNER) or hasattr(config, "workerinput"):
        return  # a session inside a test, or an xdist worker: the outermost one records
    os.environ[OWNER] = "1"
    only = bool(getattr(config.option, "collectonly", False))
    config.pluginmanager.register(_Record(only), "ralph_record_session")
