"""Which files are tests: the default globs of the common ecosystems, globs as ralph matches
them, and the language a test file is read as (pure).

A glob without `/` matches a file name in any folder (`test_*.py`); one with `/` matches the
root-relative path, `**` standing for any number of folders (`tests/**/*.rs`), `{a,b}` for
either word. Given globs (`tests:` in ralph.yaml or a spec's front matter) replace the defaults;
the runners' own settings (`runner_globs`) widen either.
"""

from __future__ import annotations

import configparser
import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

DEFAULT_GLOBS: tuple[str, ...] = (
    # Python: unittest discovery (`test*.py`, which holds pytest's `test_*.py`) and pytest's
    # `*_test.py`, and the fixtures and hooks they load
    "test*.py",
    "*_test.py",
    "conftest.py",
    # JavaScript / TypeScript: jest, vitest, mocha, and what `node --test` and ava look for
    # (tape and mocha projects keep theirs in `test/`); and jest's stored snapshots
    "*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "*{-,_}test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "test-*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/{test,tests,__tests__}/**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/__snapshots__/*.snap",
    # Go
    "*_test.go",
    # Rust: integration tests (unit tests live beside the code: see `may_hold_tests`)
    "**/tests/**/*.rs",
    # Java (and Kotlin): Maven/Gradle test sources, and the usual names
    "**/src/test/**/*.{java,kt}",
    "*Test.java",
    "*Tests.java",
    "*IT.java",
    # Ruby: RSpec and minitest
    "*_spec.rb",
    "*_test.rb",
    "**/spec/spec_helper.rb",
)

LANGUAGES = {
    ".py": "python",
    ".js": "js",
    ".jsx": "js",
    ".ts": "js",
    ".tsx": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".mts": "js",
    ".cts": "js",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "java",
    ".rb": "ruby",
    ".snap": "snap",
}


# the files whose settings name test files, and where in each pytest's settings are
RUNNER_CONFIGS = ("pytest.ini", "tox.ini", "setup.cfg", "package.json")  # and pyproject.toml
_INI_SECTIONS = {
    "pytest.ini": ("pytest", "tool:pytest"),
    "tox.ini": ("pytest",),
    "setup.cfg": ("tool:pytest",),
}
_EXTGLOB = re.compile(r"[?*+@!]\(|^!")  # jest's micromatch forms ralph's globs do not have


def runner_globs(
    configs: Mapping[str, str], pyproject: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The test files the person's runner settings name (file name -> its text; `pyproject`:
    pyproject.toml as read): pytest's `python_files` and the files among its `testpaths`,
    jest's `testMatch`. A setting that cannot be read names nothing."""
    out: list[str] = []
    for name, text in configs.items():
        if name in _INI_SECTIONS:
            out += _ini_globs(text, _INI_SECTIONS[name])
        elif name == "package.json":
            out += _jest_globs(text)
    if pyproject is not None:
        out += _pyproject_globs(pyproject)
    return tuple(dict.fromkeys(g for g in out if g))


def _pytest_globs(python_files: str | list[str], testpaths: str | list[str]) -> list[str]:
    files = python_files.split() if isinstance(python_files, str) else python_files
    paths = testpaths.split() if isinstance(testpaths, str) else testpaths
    return [*map(str, files), *(str(p) for p in paths if str(p).endswith(".py"))]


def _ini_globs(text: str, sections: Sequence[str]) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    out: list[str] = []
    for section in sections:
        if parser.has_section(section):
            get = parser[section].get
            out += _pytest_globs(get("python_files", ""), get("testpaths", ""))
    return out


def _pyproject_globs(data: Mapping[str, Any]) -> list[str]:
    tool = data.get("tool", {})
    pytest = tool.get("pytest", {}) if isinstance(tool, dict) else {}
    out: list[str] = []
    for table in (pytest, pytest.get("ini_options", {}) if isinstance(pytest, dict) else {}):
        if isinstance(table, dict):
            out += _pytest_globs(table.get("python_files", []), table.get("testpaths", []))
    return out


def _jest_globs(text: str) -> list[str]:
    try:
        jest = json.loads(text).get("jest", {})
        match = jest.get("testMatch", []) if isinstance(jest, dict) else []
    except (ValueError, AttributeError):
        return []
    globs = [g.removeprefix("<rootDir>/") for g in match if isinstance(g, str)]
    return [g for g in globs if not _EXTGLOB.search(g)]


def language(path: str) -> str | None:
    """The language a test file is read as; None: compared line by line."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower())


def may_hold_tests(path: str, text: str) -> bool:
    """A Rust source file with unit tests in it (`#[test]`) is a test file too."""
    return path.endswith(".rs") and "#[test]" in text


def is_test(path: str, globs: Sequence[str] = DEFAULT_GLOBS) -> bool:
    """Does the root-relative posix `path` match one of `globs`?"""
    return _matcher(tuple(globs)).fullmatch(path) is not None


@lru_cache(maxsize=32)
def _matcher(globs: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_glob_regex(g)})" for g in globs) or "(?!)")


def _glob_regex(glob: str) -> str:
    glob = glob.strip().removeprefix("./")
    anywhere = "/" not in glob.rstrip("/")
    out = "(?:.*/)?" if anywhere or glob.startswith("**/") else ""
    glob = glob.removeprefix("**/")
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if glob.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "{" and "}" in glob[i:]:
            end = glob.index("}", i)
            out += "(?:" + "|".join(re.escape(w) for w in glob[i + 1 : end].split(",")) + ")"
            i = end
        else:
            out += re.escape(c)
        i += 1
    if glob.endswith("/"):
        out += ".*"
    return out
