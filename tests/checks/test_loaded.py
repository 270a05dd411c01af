"""checks/loaded.py: what a spec's test run would load, asked of the interpreter the checks use."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.slow  # asks a real interpreter
def test_a_spec_without_command_checks_loads_nothing_to_judge(tmp_path: Path) -> None:
    from ralph.checks.loaded import loaded
    from ralph.checks.testguard import TestGuard
    from ralph.specs.frontmatter import parse_front_matter

    (tmp_path / ".ralph").mkdir()
    (tmp_path / "pytest.py").write_text("print('4 passed')\n")
    guard = TestGuard(tmp_path, tmp_path / ".ralph")
    meta = parse_front_matter("a.spec.md", "---\ntest_command: pytest\n---\n# a\n")
    assert loaded(tmp_path, lambda: ["pytest.py"], guard, meta)
    assert loaded(tmp_path, lambda: ["pytest.py"], guard, None) == ()
