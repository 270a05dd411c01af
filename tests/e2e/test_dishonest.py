"""Dishonest agents (tests/fakes/dishonest.py): ralph must never report any of them verified.

Each runs against a spec whose checks say what "done" means (a test command, the strict tier,
a coder promise); the run ends at its iteration limit (exit 3), no spec reaches 3/3 in
state.json, and `ralph status --json` says not complete.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import Project

DISHONEST = Path(__file__).parents[1] / "fakes" / "dishonest.py"
SPEC = """\
---
test_command: "{python} -c 'import calc; assert calc.add(2, 3) == 5'"
verification: strict
coder:
  promise: CALC_DONE
  description: calc.add adds two numbers and the test command passes
---
# calc

- [ ] `calc.py` defines `add(a, b)` returning the sum
- [ ] the test command passes
"""


@pytest.mark.parametrize("kind", ["liar", "ticker", "midway", "echo"])
def test_dishonest_agent_is_never_verified(git_project: Project, kind: str) -> None:
    p = git_project
    p.write({"specs/calc.spec.md": SPEC.format(python=sys.executable)})
    p.commit_all()
    res = p.run("run", "--agent-command", f"{sys.executable} {DISHONEST} {kind}", "-n", "5")
    # three refused DONEs in a row open the circuit breaker: headless, that aborts (exit 5);
    # the echo gives no signal at all and runs into the iteration limit (exit 3)
    assert res.exit_code == (3 if kind == "echo" else 5), res
    assert "every spec verified" not in res.stdout
    row = p.state()["specs"][0]
    assert row["done_count"] < 3
    assert row["last_status"] in ("REFUSED", "NONE")
    data = json.loads(p.run("status", "--json").stdout)
    assert data["complete"] is False
    assert all(s["done_count"] < 3 and s["needs_work"] for s in data["specs"])
    signals = {e["signal"] for e in p.rotation_ends()}
    assert "DONE" not in signals  # not a single DONE was counted


@pytest.mark.parametrize("choice", ["continue", "accept"])
def test_even_a_user_override_never_makes_a_failing_test_command_verified(
    git_project: Project, choice: str
) -> None:
    """The user goes on without the DONE checks (or accepts the spec): the final verification
    still runs the spec's test command itself, and it fails."""
    p = git_project
    p.write({"specs/calc.spec.md": SPEC.format(python=sys.executable)})
    p.commit_all()
    cmd = f"{sys.executable} {DISHONEST} liar"
    res = p.run("run", "--agent-command", cmd, "--on-escalation", choice, "-n", "30")
    assert res.exit_code != 0, res
    assert "every spec verified" not in res.stdout
    state = p.state()
    assert state["final_verification"]["passed"] is False
    assert not (p.root / ".ralph/archive").exists()


def test_a_done_first_then_more_edits_is_judged_on_the_final_tree(git_project: Project) -> None:
    p = git_project
    p.write({"specs/calc.spec.md": SPEC.format(python=sys.executable)})
    p.write({"calc.py": "def add(a, b):\n    return a + b\n"})
    p.commit_all()
    res = p.run("run", "--agent-command", f"{sys.executable} {DISHONEST} midway", "-n", "1")
    assert res.exit_code == 3
    assert "DONE refused: checkboxes" not in res.stdout  # it ticked the boxes...
    assert "test_command: exit code 1" in res.stdout  # ...but broke calc.py after its DONE
