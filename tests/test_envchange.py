"""The rules of what an agent may change in the environment the checks run in
(rules/envchange.py): pure, two scans in, refusals out; and the scan's own pieces
(store/envrecord.py) on real folders."""

from __future__ import annotations

import py_compile
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from ralph.rules.envchange import (
    NODE,
    SITE,
    STARTUP_SUFFIX,
    STDLIB,
    VENV,
    Folder,
    Stat,
    judge,
    record_paths,
    summary,
)
from ralph.store import envrecord

PROJECT = "/work/proj"
PYTEST_RECORD = (
    "pytest/__init__.py,sha256=x,10\n_pytest/runner.py,sha256=y,20\npy.py,sha256=z,5\n"
    "pytest-8.0.dist-info/RECORD,,\n../../../bin/pytest,sha256=w,3\n"
)
START = Folder(
    SITE,
    {
        "pytest/__init__.py": (10, 1, 1),
        "_pytest/runner.py": (20, 1, 1),
        "py.py": (5, 1, 1),
        "pytest-8.0.dist-info/RECORD": (100, 1, 1),
        "requests/api.py": (30, 1, 1),
        "requests-2.0.dist-info/RECORD": (50, 1, 1),
        "plug/__init__.py": (7, 1, 1),
        "plug-1.0.dist-info/entry_points.txt": (30, 1, 1),
        "plug-1.0.dist-info/RECORD": (40, 1, 1),
        "__editable__.proj-1.0.pth": (60, 1, 1),
    },
    {
        "pytest-8.0.dist-info/RECORD": PYTEST_RECORD,
        "plug-1.0.dist-info/entry_points.txt": "[pytest11]\nplug = plug\n",
        "plug-1.0.dist-info/RECORD": "plug/__init__.py,sha256=a,7\n",
        "__editable__.proj-1.0.pth": f"{PROJECT}/src\n",
    },
)


def after(
    add: Mapping[str, tuple[int, int, int]] = {},
    drop: tuple[str, ...] = (),
    texts: Mapping[str, str] = {},
    start: Folder = START,
) -> Folder:
    files = {k: v for k, v in start.files.items() if k not in drop}
    return Folder(start.kind, {**files, **add}, {**start.texts, **texts})


def refusals(
    now: Folder,
    records: Mapping[str, str] = {},
    bytecode: bool = True,
    start: Folder = START,
) -> list[str]:
    return judge(
        "/site",
        start,
        now,
        project=PROJECT,
        record=records.get,
        bytecode_ok=lambda rel: bytecode,
    )


NEW = (1, 2, 2)


def no_record(info: str) -> str | None:
    return None


def test_nothing_changed_nothing_refused() -> None:
    assert refusals(after()) == []


def test_a_new_distribution_installed_whole_is_fine() -> None:
    record = "tinydep/__init__.py,sha256=a,1\ntinydep/__pycache__/__init__.cpython-311.pyc,,\n"
    now = after(
        {
            "tinydep/__init__.py": NEW,
            "tinydep/__pycache__/__init__.cpython-311.pyc": NEW,
            "tinydep-1.0.dist-info/RECORD": NEW,
            "tinydep-1.0.dist-info/INSTALLER": NEW,
        }
    )
    assert refusals(now, {"tinydep-1.0.dist-info": record}) == []


def test_an_upgrade_of_a_distribution_the_runner_does_not_load_is_fine() -> None:
    now = after(
        {"requests/api.py": (31, 2, 2), "requests-2.1.dist-info/RECORD": NEW},
        drop=("requests-2.0.dist-info/RECORD",),
    )
    assert refusals(now, {"requests-2.1.dist-info": "requests/api.py,sha256=b,31\n"}) == []


def test_a_file_changed_in_place_without_its_record_changing_is_refused() -> None:
    found = refusals(after({"requests/api.py": (30, 5, 5)}))
    assert found == ["changed in place, its distribution's RECORD unchanged: /site/requests/api.py"]


def test_a_file_no_distribution_lists_is_refused() -> None:
    assert refusals(after({"_evil.py": NEW})) == [
        "a file no installed distribution lists: /site/_evil.py"
    ]


@pytest.mark.parametrize(
    "text",
    ["import _evil\n", "/tmp/x\nimport os; os.environ['X'] = '1'\n", "import\tsys\n"],
)
def test_a_pth_file_with_an_import_line_is_refused(text: str) -> None:
    found = refusals(after({"zz.pth": NEW}, texts={"zz.pth": text}))
    assert found == ["a .pth file that runs code at every Python start: /site/zz.pth"]


def test_a_pth_file_changed_to_run_code_is_refused() -> None:
    pth = "__editable__.proj-1.0.pth"
    now = after({pth: (80, 2, 2)}, texts={pth: f"{PROJECT}/src\nimport _evil\n"})
    assert refusals(now) == [f"a .pth file that runs code at every Python start: /site/{pth}"]


def test_a_pth_file_of_plain_paths_is_fine() -> None:
    assert refusals(after({"extra.pth": NEW}, texts={"extra.pth": "/opt/lib\n"})) == []


def editable(mapping_to: str) -> Folder:
    finder = "__editable___proj_1_0_finder"
    return after(
        {
            "__editable__.proj-1.0.pth": (80, 2, 2),
            f"{finder}.py": NEW,
            "proj-1.0.dist-info/RECORD": NEW,
        },
        texts={
            "__editable__.proj-1.0.pth": f"import {finder}; {finder}.install()\n",
            f"{finder}.py": f"MAPPING = {{'proj': '{mapping_to}'}}\n",
        },
    )


def test_the_editable_install_of_the_project_itself_is_fine() -> None:
    # `pip install -e .` by setuptools: a .pth importing its finder, which maps into the project
    record = "__editable__.proj-1.0.pth,,\n__editable___proj_1_0_finder.py,,\n"
    assert refusals(editable(f"{PROJECT}/src/proj"), {"proj-1.0.dist-info": record}) == []


@pytest.mark.parametrize(
    "target", ["/tmp/elsewhere/proj", f"{PROJECT}/.git/proj", f"{PROJECT}/.ralph/proj"]
)
def test_an_editable_finder_mapping_outside_the_compared_tree_is_refused(target: str) -> None:
    record = "__editable__.proj-1.0.pth,,\n__editable___proj_1_0_finder.py,,\n"
    found = refusals(editable(target), {"proj-1.0.dist-info": record})
    assert found == [
        "a .pth file that runs code at every Python start: /site/__editable__.proj-1.0.pth"
    ]


@pytest.mark.parametrize(
    "path", ["sitecustomize.py", "usercustomize.py", "sitecustomize/__init__.py"]
)
def test_a_module_python_runs_at_start_is_refused(path: str) -> None:
    assert refusals(after({path: NEW})) == [f"a module Python runs at every start: /site/{path}"]


def test_usercustomize_in_a_user_site_that_did_not_exist_at_start_is_refused() -> None:
    empty = Folder(SITE)
    now = Folder(SITE, {"usercustomize.py": NEW})
    found = refusals(now, start=empty)
    assert found == ["a module Python runs at every start: /site/usercustomize.py"]


def test_a_new_pytest11_entry_point_is_refused() -> None:
    record = "cheat/__init__.py,,\ncheat-1.0.dist-info/entry_points.txt,,\n"
    now = after(
        {
            "cheat/__init__.py": NEW,
            "cheat-1.0.dist-info/entry_points.txt": NEW,
            "cheat-1.0.dist-info/RECORD": NEW,
        },
        texts={"cheat-1.0.dist-info/entry_points.txt": "[pytest11]\ncheat = cheat\n"},
    )
    found = refusals(now, {"cheat-1.0.dist-info": record})
    assert found == ["a new pytest plugin that pytest loads by itself: cheat = cheat (/site)"]


@pytest.mark.parametrize(
    "change",
    [
        {"_pytest/runner.py": (21, 2, 2)},  # changed
        {"_pytest/evil.py": NEW},  # new in its package
        {"_pytest/__pycache__/runner.cpython-311.pyc": NEW},  # bytecode of the runner
        {"__pycache__/py.cpython-311.pyc": NEW},  # bytecode of a top-level module of pytest
        {"plug/__init__.py": (8, 2, 2)},  # a person's plugin present at start
    ],
)
def test_any_change_to_the_runner_own_files_is_refused(change: dict[str, Stat]) -> None:
    # even with a RECORD that lists it and bytecode that compiles: the harness is the person's
    (path,) = change
    records = {"pytest-9.0.dist-info": f"{path},,\n", "plug-1.0.dist-info": f"{path},,\n"}
    found = refusals(after(change), records, bytecode=False)
    assert found == [f"a file of the test runner changed: /site/{path}"]


def test_the_runner_own_bytecode_compiled_from_its_source_is_fine() -> None:
    # Python caching the runner's bytecode where it was not compiled at install
    pyc = {"_pytest/__pycache__/runner.cpython-311.pyc": NEW}
    assert refusals(after(pyc), bytecode=True) == []


def test_the_runner_removed_is_refused() -> None:
    found = refusals(after(drop=("_pytest/runner.py",)))
    assert found == ["a file of the test runner changed: /site/_pytest/runner.py"]


def test_bytecode_is_fine_only_when_it_is_its_source_compiled() -> None:
    pyc = {"requests/__pycache__/api.cpython-311.pyc": NEW}
    assert refusals(after(pyc), bytecode=True) == []
    assert refusals(after(pyc), bytecode=False) == [
        "bytecode that is not what its source compiles to: "
        "/site/requests/__pycache__/api.cpython-311.pyc"
    ]


def test_any_change_to_the_standard_library_is_refused() -> None:
    start = Folder(STDLIB, {"unittest/case.py": (10, 1, 1)})
    now = Folder(STDLIB, {"unittest/case.py": (11, 2, 2), "sitecustomize.py": NEW})
    found = judge("/lib", start, now, project=PROJECT, record=no_record, bytecode_ok=bool)
    assert found == [
        "the standard library changed: /lib/sitecustomize.py",
        "the standard library changed: /lib/unittest/case.py",
    ]


def test_node_modules_new_packages_are_fine_runner_and_bin_changes_are_not() -> None:
    start = Folder(
        NODE,
        {".bin/jest": (10, 1, 1), "jest/bin/jest.js": (5, 1, 1)},
        {".bin/jest": "../jest/bin/jest.js"},
    )

    def node(now: Folder) -> list[str]:
        return judge("/nm", start, now, project=PROJECT, record=no_record, bytecode_ok=bool)

    honest = Folder(
        NODE,
        {**start.files, ".bin/leftpad": NEW},
        {**start.texts, ".bin/leftpad": "../leftpad/cli.js"},
    )
    assert node(honest) == []
    relinked = Folder(NODE, {**start.files, ".bin/jest": NEW}, {".bin/jest": "../../fake.js"})
    assert node(relinked) == ["a command of node_modules/.bin changed: /nm/.bin/jest"]
    patched = Folder(NODE, {**start.files, "jest/bin/jest.js": (6, 2, 2)}, start.texts)
    assert node(patched) == ["the test runner's own package changed: /nm/jest/bin/jest.js"]


def test_record_paths_leave_out_files_outside_the_site() -> None:
    assert record_paths(PYTEST_RECORD) == {
        "pytest/__init__.py",
        "_pytest/runner.py",
        "py.py",
        "pytest-8.0.dist-info/RECORD",
    }


def test_summary_names_the_first_and_counts_the_rest() -> None:
    assert summary([]) is None
    line = summary(["a .pth file that runs code at every Python start: /s/x.pth", "b", "c"])
    assert line == (
        "the environment the checks run in was changed: a .pth file that runs code at every "
        "Python start: /s/x.pth (and 2 more)"
    )


# --- the scan's pieces, on real files -------------------------------------------------------


def compiled(source: Path) -> str:
    pyc = py_compile.compile(str(source), doraise=True)
    assert pyc is not None
    return pyc


def test_honest_bytecode_passes_and_forged_bytecode_does_not(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("def mean(xs):\n    return 0\n")
    pyc = Path(compiled(tmp_path / "mod.py"))
    rel = pyc.relative_to(tmp_path).as_posix()
    assert envrecord.bytecode_ok(tmp_path, rel)
    # the same file name, the code of another source: what the interpreter would run instead
    (tmp_path / "other.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    forged = compiled(tmp_path / "other.py")
    pyc.write_bytes(Path(forged).read_bytes())
    assert not envrecord.bytecode_ok(tmp_path, rel)
    other_tag = rel.replace(sys.implementation.cache_tag, "cpython-27")
    (tmp_path / other_tag).write_bytes(Path(forged).read_bytes())
    assert not envrecord.bytecode_ok(tmp_path, other_tag)  # cannot be checked: not taken


def test_a_scan_reads_the_texts_the_rules_need_and_survives_the_store(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "pytest-8.0.dist-info").mkdir(parents=True)
    (site / "pytest-8.0.dist-info" / "RECORD").write_text(PYTEST_RECORD)
    (site / "other-1.0.dist-info").mkdir()
    (site / "other-1.0.dist-info" / "RECORD").write_text("other.py,,\n")
    (site / "x.pth").write_text("import finder\n")
    (site / "finder.py").write_text("MAPPING = {}\n")
    (site / "linked").symlink_to(tmp_path, target_is_directory=True)  # never followed
    found = envrecord.scan_folder(site, SITE)
    assert set(found.texts) == {"pytest-8.0.dist-info/RECORD", "x.pth", "finder.py"}
    assert "linked" in found.files and not any(p.startswith("linked/") for p in found.files)
    root = tmp_path / "proj"
    root.mkdir()
    envrecord.save(root, {str(site): found})
    assert envrecord.load(root) == {str(site): found}


def test_a_virtualenv_interpreter_and_settings_are_the_person_own() -> None:
    start = Folder(
        VENV,
        {"pyvenv.cfg": (50, 1, 1), "bin/python": (7, 1, 1), "bin/black": (300, 1, 1)},
        {"pyvenv.cfg": "home = /usr/bin\n", "bin/python": "/usr/bin/python3"},
    )

    def venv(now: Folder) -> list[str]:
        return judge("/v", start, now, project=PROJECT, record=no_record, bytecode_ok=bool)

    upgraded = Folder(VENV, {**start.files, "bin/black": NEW, "bin/new": NEW}, start.texts)
    assert venv(upgraded) == []  # a tool's script rewritten by its upgrade, a new command
    swapped = Folder(VENV, {**start.files, "bin/python": NEW}, {**start.texts, "bin/python": ""})
    assert venv(swapped) == ["the virtualenv's interpreter or settings changed: /v/bin/python"]
    system = Folder(VENV, {**start.files, "pyvenv.cfg": NEW}, start.texts)  # system site on
    assert venv(system) == ["the virtualenv's interpreter or settings changed: /v/pyvenv.cfg"]


def test_a_module_python_runs_at_start_on_a_pth_path_is_refused() -> None:
    key = "extra.pth" + STARTUP_SUFFIX
    now = after({"extra.pth": NEW}, texts={"extra.pth": "/opt/x\n", key: "/opt/x/sitecustomize.py"})
    assert refusals(now) == [
        "a module Python runs at every start, on a path /site/extra.pth adds: "
        "/opt/x/sitecustomize.py"
    ]
