"""rules/evidence/reporthooks.py: test code that can rewrite a test run's per-case results
(pure)."""

from __future__ import annotations

from ralph.rules.evidence.reporthooks import forging_names


def test_names_that_can_rewrite_results() -> None:
    hook = "@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    assert forging_names(hook) == ("pytest_runtest_makereport",)
    env = "import os\nos.environ['PYTEST_ADDOPTS']\nconfig.option.xmlpath\n"
    assert forging_names(env) == ("PYTEST_ADDOPTS", "xmlpath")
    assert forging_names("def pytest_configure(config):\n    pass\n") == ()
