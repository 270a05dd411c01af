"""checks/revert.py: the `revert` method."""

from __future__ import annotations

import sys

from tests.conftest import Project

PY = sys.executable


PYTEST = f"{PY} -m pytest -q -p no:cacheprovider tests"


CHECK = "checks:\n  - method: revert\n"


def test_without_the_start_it_refuses_and_says_why(project: Project) -> None:
    """A revert check added to a spec during a run: the code as the run began was not kept."""
    from ralph.checks.revert import NO_START
    from ralph.checks.runner import run_gate

    spec = "---\nchecks:\n  - method: revert\n    config: {command: 'true'}\n---\n# x\n"
    project.write({"PROMPT.md": spec})
    gate = run_gate("PROMPT.md", project.root, run_root=project.root, start=None)
    (result,) = [r for r in gate.results if r.method == "revert"]
    assert not gate.passed and result.summary == NO_START


def test_the_prompt_tells_the_agent_the_rule() -> None:
    from ralph.checks.requirements import requirements
    from ralph.specs.frontmatter import parse_front_matter

    meta = parse_front_matter("PROMPT.md", f"---\ntest_command: {PYTEST}\n{CHECK}---\n# x\n")
    text = requirements(meta, None, "IMPLEMENT", None)
    assert "- Check revert (revert): at least one test case you add must fail on the code" in text
