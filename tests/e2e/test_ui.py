"""Tests for the displays: the pure panel, plain lines, display choice and `ralph status` output."""

from __future__ import annotations

import subprocess
import sys


def test_importing_ui_does_not_load_rich() -> None:
    code = (
        "import sys, ralph.ui.display, ralph.ui.live, ralph.ui.panel, ralph.ui.plain, "
        "ralph.ui.jsonlines; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert result.stdout.strip() == "[]"
