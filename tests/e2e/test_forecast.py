"""Cost per verified spec: tokens and cost per spec and per verified spec, and a forecast for the
open specs from this project's own rotations; in `ralph status`, the panel, --report-json and the
JUnit properties."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import Project
from tests.e2e.test_pool_faults import Script, claude, worklog  # noqa: F401

# ruff: noqa: F811 -- the fake `claude` fixture comes from test_pool_faults

DONE = {"kind": "done", "input": 1000, "output": 100, "cost": 0.05}


def test_the_cost_per_verified_spec_reaches_status_and_the_reports(
    git_project: Project, claude: Script
) -> None:
    git_project.write(
        {
            "specs/a.spec.md": "# a\n",
            "specs/b.spec.md": "# b\n",
            "ralph.yaml": "final_verification: false\n",
        }
    )
    claude([DONE])
    report, junit = git_project.root / "report.json", git_project.root / "junit.xml"
    res = git_project.run(
        "run",
        "--plain",
        "--agent",
        "claude",
        "-n",
        "5",
        "--report-json",
        str(report),
        "--junit",
        str(junit),
    )
    assert res.exit_code == 3, res  # a at 3/3 (3 rotations), b at 2/3 (the specs alternate)
    data = json.loads(report.read_text())
    costs = data["costs"]
    assert (costs["verified"], costs["open"]) == (1, 1)
    assert costs["per_verified_spec"] == {
        "calls": 3,
        "input_tokens": 3000,
        "output_tokens": 300,
        "cost_usd": pytest.approx(0.15),
    }
    # b spent $0.10 of the $0.15 a verified spec costs: about $0.05 to go
    assert costs["forecast_open"]["cost_usd"] == pytest.approx(0.05)
    assert costs["per_spec"]["specs/b.spec.md"]["input_tokens"] == 2000
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["per_verified_spec_cost_usd"] == "0.1500"
    assert props["per_verified_spec_tokens"] == "3300"
    assert props["forecast_cost_usd"] == "0.0500"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    b = {p.get("name"): p.get("value") for p in cases["specs/b.spec.md"].iter("property")}
    assert b["tokens_total"] == "2200" and b["cost_usd_total"] == "0.1000"
    status = git_project.run("status")
    assert "cost: per verified spec: $0.15, 3.3k tokens · 1 open: about $0.05" in status.stdout
    assert json.loads(git_project.run("status", "--json").stdout)["costs"]["verified"] == 1
