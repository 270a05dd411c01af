"""Every refusal says why, end to end through the real CLI: the test command's own first
error line reaches the run's line, `ralph history` (the table, its JSON, the rotation's log),
the HTML report and the agent's next prompt, with the clean room's path taken out; a passing
DONE says nothing of errors. The bar's time is in the run's "ralph's checks" time."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_evidence_runs import FIXED, mean_project

pytestmark = pytest.mark.slow

ERROR = "ModuleNotFoundError: No module named 'isodate'"


def test_a_refusal_carries_the_commands_first_error_everywhere(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    mean_project(p)
    steps = {
        "*": [
            {"write": {"calc/__init__.py": "import isodate\n" + FIXED}, "signal": "DONE"},
            {"echo_prompt": True, "write": {"calc/__init__.py": FIXED}, "signal": "DONE"},
        ]
    }
    page = tmp_path / "r.html"
    res = p.run("run", *p.fake(steps), "-n", "2", "--report-html", str(page))
    assert res.exit_code == 3, res  # the budget ended it, at 1/3
    [refused, counted] = p.rotation_ends()
    assert refused["signal"] == "REFUSED" and counted["signal"] == "DONE"
    # the person: the run's line, the history, the HTML report
    line = next(x for x in res.stdout.splitlines() if "DONE refused" in x)
    assert f"error: {ERROR}" in line and "let the agent fix the work" in line
    assert "front matter" not in line
    assert ERROR in p.run("history").stdout
    rows = json.loads(p.run("history", "--json").stdout)["rotations"]
    assert ERROR in rows[0]["note"] and "error" not in (rows[1]["note"] or "")  # the control
    assert "No module named &#x27;isodate&#x27;" in page.read_text() or ERROR in page.read_text()
    # the agent: its next prompt has the error, with paths as it knows them
    prompt = p.run("history", str(counted["iteration"])).stdout
    assert ERROR in prompt and "calc/__init__.py" in prompt
    assert str(p.store) not in prompt and "/rooms/" not in prompt
    # the bar ran before the first rotation: its time is ralph's checks' too
    [bar] = p.worklog("bar")
    [end] = p.worklog("run_end")
    checks = sum(r["checks_s"] for r in p.rotation_ends())
    assert end["totals"]["checks_seconds"] >= round(checks + bar["seconds"], 3) - 0.002


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_test_that_cannot_find_its_module_says_so(git_project: Project) -> None:
    """`node --test` puts a test file's stderr in TAP comments, far above the tail: the line
    `Cannot find module` is the refusal's all the same, and package.json declaring the package
    says it is the checks' environment that lacks it."""
    p = git_project
    ran = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    version = ran.stdout
    if int(version.lstrip("v").split(".")[0]) < 18:
        pytest.skip(f"node {version.strip()} has no node --test")
    spec = "---\ntest_command: node --test\n---\n# dates\n\n`dates.js` parses durations.\n"
    test = "const test = require('node:test');\nconst d = require('../dates');\n"
    test += "test('parses', () => { if (d('1h') !== 3600) throw new Error('wrong'); });\n"
    p.write(
        {
            "specs/dates.spec.md": spec,
            "package.json": '{"name": "dates", "version": "1.0.0"}\n',
            "dates.js": "module.exports = (s) => 3600;\n",
            "test/dates.test.js": test,
        }
    )
    p.commit_all()
    uses = "const ts = require('timestring');\nmodule.exports = (s) => ts(s);\n"
    step = {"write": {"dates.js": uses}, "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "1")
    line = next(x for x in res.stdout.splitlines() if "DONE refused" in x)
    assert "error: Error: Cannot find module 'timestring'" in line
    assert "let the agent fix the work" in line and "front matter" not in line
    # declared in package.json alone: ralph builds node_modules from it and its lockfile
    declared = '{"name": "dates", "version": "1.0.0", "dependencies": {"timestring": "^7"}}\n'
    step = {"write": {"dates.js": uses, "package.json": declared}, "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "1")
    line = next(x for x in res.stdout.splitlines() if "DONE refused" in x)
    assert "package.json changed and the tree has no package-lock.json" in line
    assert "npm install" in line and "front matter" not in line


def test_status_says_why_the_last_done_was_refused_until_one_counts(git_project: Project) -> None:
    p = git_project
    mean_project(p)
    broken = [{"write": {"calc/__init__.py": "import isodate\n" + FIXED}, "signal": "DONE"}]
    assert p.run("run", *p.fake({"*": broken}), "-n", "1").exit_code == 3
    [row] = json.loads(p.run("status", "--json").stdout)["specs"]
    assert row["last_status"] == "REFUSED" and ERROR in row["refused"]
    shown = p.run("status").stdout
    assert "refused: test_command: exit code" in shown and ERROR in shown, shown
    # control: a DONE that counts clears it
    fixed = [{"write": {"calc/__init__.py": FIXED}, "signal": "DONE"}]
    p.run("run", *p.fake({"*": fixed}), "-n", "1")
    [row] = json.loads(p.run("status", "--json").stdout)["specs"]
    assert row["last_status"] == "DONE" and row["refused"] is None
    assert "refused:" not in p.run("status").stdout
