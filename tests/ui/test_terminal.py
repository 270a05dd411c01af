"""ui/terminal.py: what kind of output ralph is writing to."""

from __future__ import annotations

import pytest


def test_ci_values_that_mean_no(monkeypatch: pytest.MonkeyPatch) -> None:
    from ralph.ui.terminal import ci_environment

    for value, expected in (("true", True), ("1", True), ("false", False), ("0", False)):
        monkeypatch.setenv("CI", value)
        assert ci_environment() is expected, value
    monkeypatch.delenv("CI")
    assert ci_environment() is False
