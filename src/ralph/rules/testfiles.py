"""Which files are tests: the default globs of the common ecosystems, globs as ralph matches
them, and the language a test file is read as (pure).

A glob without `/` matches a file name in any folder (`test_*.py`); one with `/` matches the
root-relative path, `**` standing for any number of folders (`tests/**/*.rs`), `{a,b}` for
either word. Given globs (`tests:` in ralph.yaml or a spec's front matter) replace the defaults.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import PurePosixPath

DEFAULT_GLOBS: tuple[str, ...] = (
    # Python: pytest and unittest discovery, and the fixtures and hooks they load
    "test_*.py",
    "*_test.py",
    "conftest.py",
    # JavaScript / TypeScript: jest, vitest, mocha; and jest's stored snapshots
    "*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
    "**/__tests__/**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
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
