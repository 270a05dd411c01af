"""Test code that can rewrite a test run's per-case results (pure).

pytest runs a project's `conftest.py` and test modules in the process that writes the JUnit
report: a hook there can turn a failure into a pass (`pytest_runtest_makereport`), or rewrite
or move the report (`pytest_sessionfinish`, `config.option.xmlpath`). Test files the agent
wrote or changed since the run began that name one of these are no evidence of what the
tests prove. The names are matched as words of the text: a person's own hooks, there at the
start, are not read; code that builds the names at run time is not caught (the docs say so).
"""

from __future__ import annotations

import re

# the hooks that see or make a case's report, the report's own names, pytest's plugin
# manager (which can unregister the report's writer) and the variable ralph passes it in
FORGING = (
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_runtest_logfinish",
    "pytest_report_teststatus",
    "pytest_collectreport",
    "pytest_make_collect_report",
    "pytest_sessionfinish",
    "pytest_unconfigure",
    "pytest_terminal_summary",
    "junitxml",
    "xmlpath",
    "LogXML",
    "pluginmanager",
    "PYTEST_ADDOPTS",
)
_WORDS = re.compile(r"\b(" + "|".join(FORGING) + r")\b")


def forging_names(text: str) -> tuple[str, ...]:
    """The names of `FORGING` that `text` holds, in order of first appearance."""
    return tuple(dict.fromkeys(m.group(1) for m in _WORDS.finditer(text)))
