"""rules/evidence/shadowing.py: modules that shadow the test harness (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.shadowing import import_folders, module_of, plugin_modules, shadowing

INITS = {"src/calc", "tests/unit"}  # folders with an __init__.py


FOLDERS = import_folders(
    ["tests/test_mean.py", "tests/unit/test_core.py", "test_top.py"], lambda d: d in INITS
)


def import_folders_found() -> set[str]:
    return set(FOLDERS)


def test_the_folders_a_test_run_puts_on_sys_path() -> None:
    # tests/unit has an __init__.py: pytest goes up to tests/, which has none
    assert import_folders_found() == {"", "src", "tests"}


def test_which_module_a_path_defines() -> None:
    assert module_of("pytest.py") == "pytest"
    assert module_of("unittest/__init__.py") == "unittest"
    assert module_of("calc.cpython-311-x86_64-linux-gnu.so") == "calc"
    assert module_of("pytest.pyc") == "pytest"
    assert module_of("unittest/case.py") is None  # a namespace portion loses to the real one
    assert module_of("README.md") is None


@pytest.mark.parametrize(
    ("path", "what"),
    [
        ("pytest.py", "pytest.py shadows the test runner's `pytest`: a test run imports it at"),
        ("unittest/__init__.py", "shadows the test runner's `unittest`"),
        (
            "src/_pytest/__init__.py",
            "shadows the test runner's `_pytest`: a test run imports it in src/",
        ),
        ("tests/sitecustomize.py", "shadows Python's start-up hook `sitecustomize`"),
        ("usercustomize.py", "shadows Python's start-up hook `usercustomize`"),
        ("tests/calc.py", "tests/calc.py shadows the project's own `calc` (in src/)"),
        ("calc.py", "calc.py shadows the project's own `calc` (in src/)"),
        ("tests/inspect.py", "shadows the standard library's `inspect`, which the test runner"),
        # what the runner imports at start besides itself: its requirements, plugins, C parts
        ("iniconfig.py", "shadows the test runner's `iniconfig`"),
        ("src/packaging/__init__.py", "shadows the test runner's `packaging`"),
        ("pluggy.py", "shadows the test runner's `pluggy`"),
        ("xdist/__init__.py", "shadows the test runner's `xdist`"),
        ("_json.py", "shadows the standard library's `_json`"),
        ("tests/runpy.py", "shadows the standard library's `runpy`"),
        # names only ever probed (`try: import msvcrt`): nothing real answers them
        ("msvcrt.py", "shadows `msvcrt`, which the standard library tries to import"),
        ("tests/_winapi.py", "shadows `_winapi`, which the standard library tries to import"),
        ("org/python/core.py", "shadows `org`, which the standard library tries to import"),
        ("src/org/__init__.py", "shadows `org`, which the standard library tries to import"),
    ],
)
def test_a_module_that_shadows_the_harness(path: str, what: str) -> None:
    found = shadowing([path], FOLDERS, {"calc": "src"})
    assert len(found) == 1 and what in found[0], found


@pytest.mark.parametrize(
    "path",
    [
        "tests/helpers.py",  # a new helper module: shadows nothing
        "src/calc/stats.py",  # inside the package
        "tests/unit/calc.py",  # tests/unit is a package: `tests.unit.calc`
        "docs/pytest.py",  # not a folder on sys.path
        "src/calc/__init__.py",  # the package itself, changed
        "mean.py",
        "statistics.py",  # a standard module no test runner imports
        "org.md",  # no module
        "docs/org/python/core.py",  # not under a folder on sys.path
    ],
)
def test_a_module_that_shadows_nothing(path: str) -> None:
    assert shadowing([path], FOLDERS, {"calc": "src"}) == []


def test_pytest_plugins_are_read_from_the_pytest11_section_only() -> None:
    text = (
        "[console_scripts]\nhyp = hypothesis.cli:main\n\n"
        "[pytest11]\nhypothesispytest = _hypothesis_pytestplugin\n"
        "bench = pytest_benchmark.plugin:Plugin\n  bad = 9not.a.module\n\n[other]\nx = y\n"
    )
    assert plugin_modules(text) == {"_hypothesis_pytestplugin", "pytest_benchmark"}
    assert plugin_modules("") == set()


def test_a_root_module_named_like_a_declared_plugin_shadows_it() -> None:
    plugins = {"_hypothesis_pytestplugin"}
    found = shadowing(["_hypothesis_pytestplugin.py"], {"", "src"}, {}, plugins)
    assert found == [
        "_hypothesis_pytestplugin.py shadows the pytest plugin `_hypothesis_pytestplugin`, "
        "which pytest imports at the test run's start: a test run imports it at the project "
        "root instead"
    ]
    assert shadowing(["_hypothesis_pytestplugin.py"], {"", "src"}, {}) == []
    assert shadowing(["calc.py"], {"", "src"}, {}, plugins) == []
