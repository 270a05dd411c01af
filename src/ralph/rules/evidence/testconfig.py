"""Which files steer how the tests run: the test configuration ralph records beside the tests
(pure).

Files named here are test configuration wherever they are in the tree. Some are the person's
whole (`pytest.ini`, a `Makefile`, a `conftest.py`); some are mixed (`pyproject.toml`,
`setup.cfg`, `package.json`): only their test-steering part is (rules/environment/configparts.py).
The
`__init__.py` of a folder of tests and the runner scripts a test command names count too; the
checks decide those from the tree (checks/testconfig.py).
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from typing import Literal

from ralph.rules.evidence.testfiles import DEFAULT_GLOBS, is_test

Kind = Literal["whole", "mixed"]

WHOLE_NAMES = frozenset(
    {
        "pytest.ini",
        ".pytest.ini",
        "tox.ini",
        "conftest.py",
        "noxfile.py",
        "Makefile",
        "makefile",
        "GNUmakefile",
        "pytest.toml",  # pytest 9 reads these too
        ".pytest.toml",
        ".env",  # `PYTEST_ADDOPTS` in it steers pytest, through a Makefile's `include .env`
    }
)
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
MIXED_NAMES = frozenset({"pyproject.toml", "setup.cfg", "package.json"})
# jest, vitest and mocha read these on their own
WHOLE_GLOBS = (
    "*.mk",  # what a Makefile includes
    "jest.config.*",
    "vitest.config.*",
    "vitest.workspace.*",
    "vite.config.*",  # vitest reads its `test` key when no vitest.config is there
    ".mocharc",
    ".mocharc.*",
)
TEST_FOLDERS = frozenset({"tests", "test", "__tests__"})
HELPER_SUFFIXES = frozenset(
    {".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".rb"}
)
GLOB_STARTS = ("jest.", "vitest.", "vite.", ".mocharc")
# commands that run the script named after them (their options skipped)
INTERPRETERS = frozenset(
    {"python", "python3", "py", "pypy", "pypy3", "bash", "sh", "zsh", "dash", "ksh"}
    | {"node", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "pwsh", "php"}
)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# words that run the command after them
WRAPPERS = frozenset({"env", "exec", "time", "nice", "nohup", "command", "xvfb-run"})
RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "rye"})  # `uv run CMD`
SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "(", ")", "|&"})
# where a project keeps its environment (a virtualenv, node's packages): a command that runs
# `.venv/bin/python` runs the environment the checks are given, not a script of the tree's
ENVIRONMENT_FOLDERS = frozenset({".venv", "venv", "env", "node_modules"})


def kind(path: str) -> Kind | None:
    """Is the root-relative posix `path` test configuration by its name or place (a helper
    module in a folder of tests), and of which kind?"""
    found = name_kind(posixpath.basename(path))
    if found is None and helper(path):
        return "whole"
    return found


def helper(path: str) -> bool:
    """A source file in a `tests/`, `test/` or `__tests__/` folder (at any depth): a helper
    the tests import (`tests/helpers.py`), as much the person's as the tests (test files
    themselves are the tests' baseline's)."""
    folders = path.split("/")[:-1]
    return (
        bool(folders)
        and posixpath.splitext(path)[1] in HELPER_SUFFIXES
        and any(f in TEST_FOLDERS for f in folders)
    )


def name_kind(name: str) -> Kind | None:
    """`kind` of a file named `name`."""
    if name in WHOLE_NAMES:
        return "whole"
    # most names start with none of the globs': they are not matched one by one
    starts = name.startswith(GLOB_STARTS) or name.endswith(".mk")
    if starts and any(fnmatchcase(name, g) for g in WHOLE_GLOBS):
        return "whole"
    if name in MIXED_NAMES:
        return "mixed"
    return None


def holds_only_tests(names: Iterable[str], globs: Sequence[str] = DEFAULT_GLOBS) -> bool:
    """Do the Python files `names` of one folder make a folder of tests (at least one test, and
    nothing but tests, `conftest.py` and `__init__.py`)? Its `__init__.py` is then test
    configuration; in a folder that also holds code, it is code."""
    modules = [n for n in names if n.endswith(".py") and n != "__init__.py"]
    tests = [n for n in modules if n == "conftest.py" or is_test(n, globs)]
    return bool(tests) and len(tests) == len(modules)


def command_scripts(command: str) -> list[str]:
    """The files a test command runs by path: each simple command's program, or the script
    an interpreter is given (`./run_tests.sh`, `python scripts/test.py`, `bash -c '...'`
    looked into). Root-relative posix candidates; the caller keeps those that are files."""
    out: list[str] = []
    for words in _simple_commands(command):
        out += _scripts(words)
    paths = (p for p in (_relative(w) for w in out) if p is not None)
    return list(dict.fromkeys(p for p in paths if p.split("/")[0] not in ENVIRONMENT_FOLDERS))


def recipe_commands(name: str, text: str) -> list[str]:
    """The commands a Makefile's recipes or a package.json's scripts run: the scripts they
    name are runner scripts too (`make test` running `./scripts/test.sh`)."""
    if name == "package.json":
        try:
            scripts = json.loads(text).get("scripts")
        except (ValueError, AttributeError):
            return []
        return (
            [v for v in scripts.values() if isinstance(v, str)] if isinstance(scripts, dict) else []
        )
    if name_kind(name) != "whole" or name not in MAKEFILES:
        return []
    return [line.strip().lstrip("@-+") for line in text.splitlines() if line.startswith("\t")]


def _simple_commands(command: str) -> list[list[str]]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: the shell refuses it too; look at the words
        tokens = command.split()
    out: list[list[str]] = [[]]
    for token in tokens:
        if token in SEPARATORS:
            out.append([])
        else:
            out[-1].append(token)
    return [words for words in out if words]


def _scripts(words: list[str]) -> list[str]:
    while words and ("=" in words[0] and not words[0].startswith(("=", "-", "/", "."))):
        words = words[1:]  # VAR=value before the command
    while words and (words[0] in WRAPPERS or words[0] in RUNNERS or words[0] == "run"):
        words = words[1:]
    if not words:
        return []
    program, rest = words[0], words[1:]
    base = posixpath.basename(program).rstrip("0123456789.")
    if base not in INTERPRETERS:
        return [program]
    for i, word in enumerate(rest):
        if word == "-c" and base in SHELLS and i + 1 < len(rest):
            return [program, *command_scripts(rest[i + 1])]
        if word in ("-m", "-c", "-e", "--eval"):  # a module or code, not a file
            return [program]
        if not word.startswith("-"):
            return [program, word]
    return [program]


def _relative(word: str) -> str | None:
    """`word` as a root-relative posix path, or None when it cannot name a file in the tree."""
    if not word or word.startswith(("/", "~", "-", "$")) or "\\" in word or "\0" in word:
        return None
    path = posixpath.normpath(word)
    if path in {".", ".."} or path.startswith("../"):
        return None
    return path
