"""checks/recognised.py: which test files ralph recognises in a tree, and the line that says
it recognises none."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.checks.recognised import UNRECOGNISED, found_line, guarded_globs, recognised_tests


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_js_project_s_tests_are_recognised_where_its_runners_look(tmp_path: Path) -> None:
    """tape's `test/`, node's `*.test.mjs`, and jest's own testMatch; never what npm
    installed. Control: the code is no test."""
    write(
        tmp_path,
        {
            "index.js": "module.exports = {};\n",
            "test/index.js": "require('tape');\n",
            "lib/calc.test.mjs": "import test from 'node:test';\n",
            "checks/calc.js": "require('node:test');\n",
            "node_modules/tape/test/x.js": "require('tape');\n",
            "package.json": json.dumps({"jest": {"testMatch": ["<rootDir>/checks/*.js"]}}),
        },
    )
    assert "checks/*.js" in guarded_globs(tmp_path)
    assert recognised_tests(tmp_path) == ["checks/calc.js", "lib/calc.test.mjs", "test/index.js"]
    # given globs replace the defaults; the runner's settings still widen them
    assert recognised_tests(tmp_path, ["lib/*.mjs"]) == ["checks/calc.js", "lib/calc.test.mjs"]


def test_none_recognised_says_what_to_set() -> None:
    assert found_line(0) == UNRECOGNISED
    assert "`tests:` in ralph.yaml" in UNRECOGNISED
    assert found_line(1) == "1 test file found: they may grow, never shrink"
    assert found_line(3).startswith("3 test files found")
