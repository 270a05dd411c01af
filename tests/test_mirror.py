"""Tests mirror the code: a module's tests are in tests/<package>/test_<module>.py.

Every module of a package has its test file there, and that file imports the module it is named
for (a file of the right name testing something else does not count; a command's file may run it
through the CLI instead, as a person meets it), except the modules listed
in tests/unmirrored.txt, whose tests are still in tests/e2e/ or nowhere of their own: a list
that only shrinks (a module that gets its file leaves it; a new module comes with its file). In
every package's test folder, each test file is named for a module that exists: renaming a module
renames its tests. Tests that drive ralph end to end are named for behaviour, in tests/e2e/.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"

PACKAGES = tuple(sorted(p.name for p in (SRC / "ralph").iterdir() if (p / "__init__.py").is_file()))
UNMIRRORED = TESTS / "unmirrored.txt"


def _imported(test_file: Path) -> set[str]:
    """The ralph modules `test_file` imports, anywhere in it (`from ralph.p import m` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def _modules(src: Path, package: str) -> list[str]:
    """The modules of `package`, its sub-packages' too, as paths below it (`disk/files`)."""
    root = src / "ralph" / package
    return sorted(
        p.relative_to(root).with_suffix("").as_posix()
        for p in root.rglob("*.py")
        if p.stem != "__init__"
    )


def _test_file(tests: Path, package: str, module: str) -> Path:
    """tests/<package>/<sub-package>/test_<module>.py"""
    folder, _, stem = module.rpartition("/")
    return tests / package / folder / f"test_{stem}.py"


def untested(src: Path, tests: Path, packages: Iterable[str]) -> list[str]:
    """Each module of `packages` without its test file, or whose test file does not import it."""
    found = []
    for package in packages:
        for module in _modules(src, package):
            test = _test_file(tests, package, module)
            name = f"ralph.{package}.{module.replace('/', '.')}"
            if not test.is_file():
                found.append(f"{name}: no {test.relative_to(tests.parent)}")
            elif name not in _imported(test) and not (
                package == "commands" and module in _commands_run(test)
            ):
                found.append(f"{name}: {test.relative_to(tests.parent)} does not import it")
    return found


def _commands_run(test_file: Path) -> set[str]:
    """The ralph commands `test_file` runs through the CLI (`project.run("status", ...)`): a
    command's module is tested as a person meets it."""
    return {
        node.args[0].value
        for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("run", "run_subprocess")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    }


def orphans(src: Path, tests: Path) -> list[str]:
    """Test files in a package's test folder named for no module of that package."""
    found = []
    for folder in sorted(p for p in tests.iterdir() if (src / "ralph" / p.name).is_dir()):
        modules = set(_modules(src, folder.name))
        for test in sorted(folder.rglob("test_*.py")):
            where = test.parent.relative_to(folder).as_posix()
            module = test.stem.removeprefix("test_")
            if (f"{where}/{module}" if where != "." else module) not in modules:
                found.append(str(test.relative_to(tests.parent)))
    return found


def test_each_module_has_its_test_file_but_those_listed_not_yet() -> None:
    lines = UNMIRRORED.read_text(encoding="utf-8").splitlines()
    listed = {line.strip() for line in lines if line.strip() and not line.startswith("#")}
    missing = {line.split(":")[0]: line for line in untested(SRC, TESTS, PACKAGES)}
    new = sorted(line for name, line in missing.items() if name not in listed)
    assert new == [], "a module comes with its tests/<package>/test_<module>.py"
    mirrored = sorted(listed - set(missing))
    assert mirrored == [], f"mirrored now: remove them from {UNMIRRORED.name}"


def test_every_module_of_rules_has_its_test_file() -> None:
    assert untested(SRC, TESTS, ["rules"]) == []


def test_each_test_file_of_a_package_is_named_for_one_of_its_modules() -> None:
    assert orphans(SRC, TESTS) == []


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_missing_a_misnamed_and_an_orphan_test_file_are_named(tmp_path: Path) -> None:
    # the control: a checker that never finds anything would pass both tests above
    src, tests = tmp_path / "src", tmp_path / "tests"
    _tree(
        tmp_path,
        {
            "src/ralph/rules/__init__.py": "",
            "src/ralph/rules/kept.py": "",
            "src/ralph/rules/aliased.py": "",
            "src/ralph/rules/wrong.py": "",
            "src/ralph/rules/gone.py": "",
            "tests/rules/test_kept.py": "from ralph.rules.kept import f\n",
            "tests/rules/test_aliased.py": "def t():\n    from ralph.rules import aliased\n",
            "tests/rules/test_wrong.py": "from ralph.rules.kept import f\n",
            "tests/rules/test_renamed.py": "from ralph.rules.kept import f\n",
            "src/ralph/commands/status.py": "",
            "src/ralph/commands/reset.py": "",
            "tests/commands/test_status.py": "def t(p):\n    p.run('status', '--json')\n",
            "tests/commands/test_reset.py": "def t(p):\n    p.run('status')\n",
            "tests/e2e/test_a_behaviour.py": "",
        },
    )
    assert untested(src, tests, ["rules", "commands"]) == [
        "ralph.rules.gone: no tests/rules/test_gone.py",
        "ralph.rules.wrong: tests/rules/test_wrong.py does not import it",
        "ralph.commands.reset: tests/commands/test_reset.py does not import it",
    ]
    assert orphans(src, tests) == ["tests/rules/test_renamed.py"]
