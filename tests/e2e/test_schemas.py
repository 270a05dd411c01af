"""One machine vocabulary: every JSON output of ralph carries `schema_version` and follows the
JSON Schema `ralph schema NAME` prints. The outputs checked are real: a demo-agent run through the
real CLI (a process), and every `--json` command on the project it leaves."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.schemas.catalog import SCHEMA_VERSION, SCHEMAS
from tests.example_sync import EXAMPLE
from tests.schemas.test_catalog import problems


def ralph(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RALPH_DEMO_DELAY": "0", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every JSON output of one demo run, by schema name (`event`: the list of events)."""
    project = tmp_path_factory.mktemp("schemas") / "demo"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".ralph"))
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    assert ralph(project, "init").returncode == 0
    found: dict[str, Any] = {"plan": json.loads(ralph(project, "plan", "--json").stdout)}
    report = project.parent / "report.json"
    run = ralph(
        project,
        "run",
        "--agent",
        "demo",
        "--log-format",
        "json",
        "-v",
        "--report-json",
        str(report),
    )
    assert run.returncode == 0, run.stdout + run.stderr
    found["event"] = [json.loads(line) for line in run.stdout.splitlines()]
    found["report"] = json.loads(report.read_text())
    found["seal"] = json.loads(ralph(project, "seal", "--list", "--json").stdout)
    for name in ("status", "history", "agents", "inspect", "doctor", "plugins"):
        res = ralph(project, name, "--json")
        assert res.returncode == 0, res.stderr
        found[name] = json.loads(res.stdout)
    yield found


@pytest.mark.slow
# the hook's argument is checked where plugins hear a real run (tests/e2e/test_plugins_installed.py)
@pytest.mark.parametrize("name", [n for n in SCHEMAS if n not in ("event", "hook")])
def test_each_json_output_of_a_real_run_follows_its_schema(
    outputs: dict[str, Any], name: str
) -> None:
    data = outputs[name]
    assert data["schema_version"] == SCHEMA_VERSION
    assert problems(name, data) == []
    # not vacuous: the run filled what the schema describes
    if name == "plan":
        assert [item["spec"] for item in data["include"]][:1] == ["PROMPT.md"]
    if name in ("status", "report"):
        assert {s["path"] for s in data["specs"]} >= {"PROMPT.md", "specs/cli.spec.md"}
    if name == "history":
        assert {r["mode"] for r in data["rotations"]} >= {"IMPLEMENT", "REVIEW", "VERIFY"}


@pytest.mark.slow
def test_every_event_of_a_real_run_follows_the_event_schema(outputs: dict[str, Any]) -> None:
    events = outputs["event"]
    names = {e["event"] for e in events}
    assert {"run_started", "rotation_started", "agent_output", "rotation_ended"} <= names
    assert {"notice", "run_ended"} <= names
    for event in events:
        assert event["schema_version"] == SCHEMA_VERSION
        assert problems("event", event) == [], event
