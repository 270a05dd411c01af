"""The figures a run reports agree and read well: the headless end line has no nested braces,
the panel's usage is the run's own total (final verification included), money is rounded in
JSON, and the JUnit report counts the rotations the run says it made (issue 21)."""

from __future__ import annotations

import html
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAKES, Project

PRICE = 0.1  # three of them add up to 0.30000000000000004 in floating point


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`claude` on PATH is tests/fakes/fake_claude.py: it reports tokens and a price."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKES / "fake_claude.py"}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    script = tmp_path / "claude.json"
    step = {"input": 30000, "output": 1000, "cost": PRICE}
    kinds = ["done", "done", "done", "verify_pass"]
    script.write_text(json.dumps([{"kind": kind, **step} for kind in kinds]))
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))
    return script


@pytest.mark.skipif(sys.platform == "win32", reason="a shell wrapper stands in for claude")
def test_a_priced_run_reports_one_count_rounded_money_and_a_readable_end(
    git_project: Project, claude: Path, tmp_path: Path
) -> None:
    assert sum([PRICE] * 3) != round(PRICE * 3, 6)  # the noise this test is about
    git_project.write({"PROMPT.md": "# goal\n- [x] done\n"})
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    res = git_project.run(
        "run",
        "--agent",
        "claude",
        "--headless",
        "--report-junit",
        str(junit),
        "--report-json",
        str(report),
    )
    assert res.exit_code == 0, res
    # one count: 3 rotations on the spec and the final verification, as the run said
    assert "last rotation 4/" in res.stdout
    suite = ET.parse(junit).getroot().find("testsuite/properties")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["rotations"] == "4"
    data = json.loads(report.read_text())
    assert data["totals"]["rotations"] == 4
    # money rounded wherever it is in the JSON (no float noise)
    text = report.read_text()
    assert not re.search(r"\d\.\d{7,}", text), text
    assert data["specs"][0]["cost_usd"] == round(PRICE * 3, 6)
    # the end of a headless run: readable lines, never a dumped structure
    end = [line for line in res.stdout.splitlines() if "run ended:" in line]
    assert end and "{" not in end[0], end
    assert any("costs: per verified spec:" in line for line in res.stdout.splitlines())
    assert "{" not in "".join(res.stdout.splitlines()[-5:])


@pytest.mark.skipif(sys.platform == "win32", reason="a shell wrapper stands in for claude")
def test_the_final_verification_rotation_carries_its_usage(
    git_project: Project, claude: Path
) -> None:
    git_project.write({"PROMPT.md": "# goal\n- [x] done\n"})
    res = git_project.run("run", "--agent", "claude", "--headless", "--log-format", "json")
    assert res.exit_code == 0, res
    events = [json.loads(line) for line in res.stdout.splitlines()]
    verify = [e for e in events if e["event"] == "rotation_ended" and e["mode"] == "VERIFY"]
    assert verify and verify[0]["usage"]["input_tokens"] == 30000
    rotated = sum(e["usage"]["input_tokens"] for e in events if e["event"] == "rotation_ended")
    (end,) = [e for e in events if e["event"] == "run_ended"]
    assert rotated == end["usage"]["input_tokens"] == 4 * 30000
    # the worklog says it too (the HTML report's tokens over time read it there)
    assert git_project.worklog("verification")[-1]["input_tokens"] == 30000


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="a shell wrapper stands in for claude")
def test_one_set_of_numbers_in_every_place_that_shows_them(
    git_project: Project, claude: Path, tmp_path: Path
) -> None:
    """The end line, `status`, the JSON report, the HTML report and the webhook say the same
    cost, tokens and times: one function over ralph's record of the run (rules/runtotals),
    the final verification's call and ralph's own checks' time included (issue 28)."""
    from tests.receiver import receiving

    check = "---\ntest_command: python -c pass\n---\n# goal\n- [x] done\n"
    git_project.write({"PROMPT.md": check})
    report, page = tmp_path / "report.json", tmp_path / "out" / "run.html"
    with receiving() as hook:
        git_project.write({"ralph.yaml": f"notify:\n  webhook: {hook.url}\n"})
        res = git_project.run(
            "run",
            "--agent",
            "claude",
            "--headless",
            "--report-json",
            str(report),
            "--report-html",
            str(page),
        )
    assert res.exit_code == 0, res
    (said,) = [
        line.split("this run: ", 1)[1] for line in res.stdout.splitlines() if "this run: " in line
    ]
    # 3 rotations and the final verification, each priced: the verification's call counts
    assert said.startswith("4 rotations · 120.0k in · 4.0k out · $0.40 · time "), said
    status = git_project.run("status")
    assert f"last run: {said}" in status.stdout, status.stdout
    totals = json.loads(report.read_text())["totals"]
    assert totals["cost_usd"] == round(4 * PRICE, 6)
    assert (totals["input_tokens"], totals["output_tokens"]) == (4 * 30000, 4 * 1000)
    assert totals["checks_seconds"] > 0  # the DONE gate ran the spec's test command
    assert totals["agent_seconds"] + totals["checks_seconds"] <= totals["seconds"]
    (end,) = hook.of("run_end")
    assert said in end["text"]
    assert end["totals"] == json.loads(json.dumps(status_totals(git_project)))
    assert end["totals"]["cost_usd"] == totals["cost_usd"]
    assert end["totals"]["checks_seconds"] == totals["checks_seconds"]
    assert said in html.unescape(page.read_text())  # the HTML report's header line
    # per rotation: ralph's checks' time beside the agent's, in the record and the report
    for rec in git_project.rotation_ends():
        checks = [c for c in git_project.worklog("check") if c["iteration"] == rec["iteration"]]
        assert rec["checks_s"] >= sum(c["seconds"] for c in checks)  # a cached one took 0
        assert rec["seconds"] >= rec["agent_s"]
    assert git_project.rotation_ends()[0]["checks_s"] > 0
    first_line = next(line for line in res.stdout.splitlines() if "rotation 1 ended" in line)
    assert ", checks " in first_line, first_line  # the rotation's line says its checks' share
    # history: each rotation's time and its checks' share
    listed = json.loads(git_project.run("history", "--json").stdout)["rotations"]
    first = git_project.rotation_ends()[0]
    assert listed[0]["checks_seconds"] == first["checks_s"] and listed[0]["duration"] > 0
    assert git_project.run("history").stdout.splitlines()[0].split()[-2:] == ["checks", "cost"]
    assert "(checks " in page.read_text()


def status_totals(project: Project) -> Any:
    res = project.run("status", "--json")
    return json.loads(res.stdout)["last_run"]
