"""commands/runreported.py: the end of a run as the plugins hear it; a plugin that raises or
hangs there is named in one line and the others still hear it; ralph's own made for the run are
dropped once told."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pluggy
import pytest

from ralph.commands.runreported import reported, tell
from ralph.plugins import hookspecs
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import Plugins
from ralph.ui.runreport import RunReport, SpecReport

REPORT = RunReport(
    exit_code=5,
    reason="the agent has a question",
    specs=(SpecReport("specs/a.md", 3, "DONE"), SpecReport("specs/b.md", 1, "QUESTION")),
)


class _Heard:
    def __init__(self) -> None:
        self.heard: list[dict[str, Any]] = []

    @hookimpl
    def ralph_run_reported(self, event: dict[str, Any]) -> None:
        self.heard.append(dict(event))
        event["exit_code"] = 0  # a copy: no other plugin sees this


class _Raises:
    @hookimpl
    def ralph_run_reported(self, event: dict[str, Any]) -> None:
        raise RuntimeError("chat down")


class _Hangs:
    def __init__(self) -> None:
        self.release = threading.Event()

    @hookimpl
    def ralph_run_reported(self, event: dict[str, Any]) -> None:
        self.release.wait(30)


def _plugins(*named: tuple[str, object]) -> Plugins:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, plugin in named:
        pm.register(plugin, name=name)
    return Plugins(pm, {}, [], set())


def test_the_event_says_how_the_run_ended_and_each_specs_count(tmp_path: Path) -> None:
    event = reported(tmp_path / "app", REPORT)
    assert (event["event"], event["project"], event["exit_code"]) == ("run_reported", "app", 5)
    assert [(s["path"], s["verified"]) for s in event["specs"]] == [
        ("specs/a.md", True),
        ("specs/b.md", False),
    ]
    assert event["schema_version"] == 1 and event["totals"] is None


def test_one_that_raises_or_hangs_is_named_and_the_others_still_hear(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, last, hangs = _Heard(), _Heard(), _Hangs()
    found = _plugins(("first", first), ("raises", _Raises()), ("hangs", hangs), ("last", last))
    try:
        tell(found, reported(tmp_path / "app", REPORT), limit=0.5)
    finally:
        hangs.release.set()
    assert [e["exit_code"] for e in first.heard + last.heard] == [5, 5]  # each its own copy
    err = capsys.readouterr().err
    assert "plugin raises: ralph_run_reported raised RuntimeError: chat down" in err
    assert "plugin hangs: ralph_run_reported took over 0.5 s" in err


def test_without_a_failing_plugin_nothing_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    heard = _Heard()
    tell(_plugins(("heard", heard)), reported(tmp_path / "app", REPORT))
    assert len(heard.heard) == 1 and capsys.readouterr().err == ""
