"""rules/evidence/testconfig.py: which files steer how the tests run."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.testconfig import command_scripts, holds_only_tests, kind, recipe_commands


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pytest.ini", "whole"),
        ("sub/.pytest.ini", "whole"),
        ("tox.ini", "whole"),
        ("tests/conftest.py", "whole"),
        ("Makefile", "whole"),
        ("GNUmakefile", "whole"),
        ("noxfile.py", "whole"),
        ("pytest.toml", "whole"),
        ("make/common.mk", "whole"),
        ("jest.config.js", "whole"),
        ("web/vitest.config.ts", "whole"),
        (".mocharc.yml", "whole"),
        (".env", "whole"),
        ("pyproject.toml", "mixed"),
        ("setup.cfg", "mixed"),
        ("web/package.json", "mixed"),
        ("tests/helpers.py", "whole"),
        ("pkg/tests/util/fake.ts", "whole"),
        ("src/__tests__/setup.js", "whole"),
        ("tests/data/case.json", None),
        ("testing/helpers.py", None),
        ("calc.py", None),
        ("README.md", None),
        ("package-lock.json", None),
    ],
)
def test_kind(path: str, expected: str | None) -> None:
    assert kind(path) == expected


def test_a_folder_of_tests_has_a_configuration_init_a_package_does_not() -> None:
    assert holds_only_tests(["__init__.py", "test_calc.py", "conftest.py"])
    assert not holds_only_tests(["__init__.py", "calc.py", "test_calc.py"])
    assert not holds_only_tests(["__init__.py"])


@pytest.mark.parametrize(
    ("command", "scripts"),
    [
        ("./run_tests.sh", ["run_tests.sh"]),
        ("python scripts/test.py -v", ["python", "scripts/test.py"]),
        ("python3.12 -u ./ci/test.py", ["python3.12", "ci/test.py"]),
        ("python -m pytest -q", ["python"]),
        ("make test", ["make"]),
        ("bash -c 'cd x && ./t.sh'", ["bash", "cd", "t.sh"]),
        ("FOO=1 env uv run ./t.sh && node tools/check.js", ["t.sh", "node", "tools/check.js"]),
        ("sh ../outside.sh; /usr/bin/true", ["sh"]),
        ("python -c 'print(1)'", ["python"]),
        ("bash 'unbalanced", ["bash", "'unbalanced"]),
        # the project's environment is the checks' environment, not a script of the tree
        (".venv/bin/python -m pytest", []),
        ("venv/bin/pytest -q && node_modules/.bin/jest", []),
        ("env/bin/python scripts/t.py", ["scripts/t.py"]),
    ],
)
def test_command_scripts(command: str, scripts: list[str]) -> None:
    assert command_scripts(command) == scripts


def test_the_scripts_a_makefile_or_package_json_runs() -> None:
    makefile = "test: lint\n\t@./scripts/test.sh -q\n\t-python tools/check.py\n# \tnot a recipe\n"
    assert recipe_commands("Makefile", makefile) == [
        "./scripts/test.sh -q",
        "python tools/check.py",
    ]
    package = '{"scripts": {"test": "node tools/run.js", "n": 1}}'
    assert recipe_commands("package.json", package) == ["node tools/run.js"]
    assert recipe_commands("package.json", "[1]") == []
    assert recipe_commands("package.json", "{bad") == []
    assert recipe_commands("tox.ini", "\tcommands") == []
