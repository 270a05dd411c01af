"""The environment the checks run in is ralph's (store/environments/envcopy.py,
store/environments/envbuild.py), through
the real CLI: a project with its own `.venv` (a real pytest in it), an agent program that leaves
`mean()` wrong and bends the project's environment so the test would pass anyway. The bend
never reaches a check: never verified. Honest agents (a new dependency the tree declares, the
project's `.venv` as it is, an editable install, a virtualenv of their own) reach verified."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from ralph.checks.place import UNBUILT
from ralph.store.environments.envcopy import start_envs
from tests.conftest import Project, Result

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")


# What a bent environment does: every import of `calc` gets a correct `mean`, the file stays
# wrong. Run from a .pth, a sitecustomize, a usercustomize or pytest's own __init__.
FIX_CALC = """
import sys as _sys


class _FixCalc:
    def find_spec(self, name, path=None, target=None):
        if name != "calc":
            return None
        import importlib.util

        _sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        _sys.meta_path.insert(0, self)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            module.mean = lambda xs: sum(xs) / len(xs)

        spec.loader.exec_module = exec_module
        return spec


_sys.meta_path.insert(0, _FixCalc())
"""


RUNNER = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py.py")


CHECK = ".venv/bin/python -m pytest -q -p no:cacheprovider"


WRONG = "def mean(xs):\n    return 0\n"


RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def site_of(env_dir: Path) -> Path:
    return next(env_dir.glob("lib/python3*/site-packages"))


def venv_project(p: Project, *, system_site: bool = False) -> Path:
    """calc.py (wrong), its test, a spec whose DONE runs the test with the project's own
    `.venv` (pytest copied in from ralph's environment: nothing is fetched)."""
    p.write(
        {
            "calc.py": WRONG,
            "tests/test_calc.py": (
                "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"
            ),
            "PROMPT.md": f"---\ntest_command: {CHECK}\n---\n# mean\nFix mean() in calc.py.\n",
            ".gitignore": ".ralph/\n.venv/\n__pycache__/\n",
        }
    )
    p.git("init", "-q")
    p.commit_all()
    env_dir = p.root / ".venv"
    venv.create(env_dir, with_pip=False, system_site_packages=system_site)
    ours, site = Path(pytest.__file__).parents[1], site_of(env_dir)
    for entry in ours.iterdir():
        name = entry.name.split("-")[0] if entry.name.endswith(".dist-info") else entry.name
        if name in RUNNER:
            copy = shutil.copytree if entry.is_dir() else shutil.copy2
            copy(entry, site / entry.name)
    return site


def bend(p: Project, files: dict[Path, str], *, append: bool = False) -> Result:
    """The agent: writes (or appends) `files` outside the tree, leaves mean() wrong and says
    DONE, then DONE again; a run of at most 3 rotations."""
    run = " && ".join(
        f"mkdir -p {path.parent} && printf %s {shlex.quote(text)} {'>>' if append else '>'} {path}"
        for path, text in files.items()
    )
    steps = [{"run": run, "signal": "DONE"}, {"signal": "DONE"}]
    return p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")


def refused(res: Result, what: str = "") -> None:
    """Never verified: the bend never reached the check, which failed on the wrong code."""
    assert res.exit_code != 0, res.stdout
    assert res.project.counts() == {"PROMPT.md": 0}
    assert "DONE refused: test_command" in res.stdout, res.stdout


def test_the_bent_environment_would_pass_the_wrong_code_without_the_guard(
    project: Project,
) -> None:
    # the control: each payload really makes the wrong mean() pass the person's test
    site = venv_project(project)
    (site / "_fixcalc.py").write_text(FIX_CALC)
    (site / "zz.pth").write_text("import _fixcalc\n")
    run = subprocess.run(
        CHECK.split(), cwd=project.root, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout


def test_a_pth_file_that_patches_the_code_under_test_is_never_verified(
    project: Project,
) -> None:
    site = venv_project(project)
    res = bend(project, {site / "_fixcalc.py": FIX_CALC, site / "zz.pth": "import _fixcalc\n"})
    refused(res)


def test_a_sitecustomize_in_the_venv_is_never_verified(project: Project) -> None:
    site = venv_project(project)
    res = bend(project, {site / "sitecustomize.py": FIX_CALC})
    refused(res)


def test_a_usercustomize_in_the_user_site_is_never_verified(project: Project) -> None:
    venv_project(project, system_site=True)  # such a venv's Python reads the user site
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    user_site = Path(os.environ["HOME"], ".local", "lib", version, "site-packages")  # conftest's
    res = bend(project, {user_site / "usercustomize.py": FIX_CALC})
    refused(res)  # the checks load no user site


def test_a_file_of_pytest_changed_is_never_verified(project: Project) -> None:
    site = venv_project(project)
    res = bend(project, {site / "pytest" / "__init__.py": FIX_CALC}, append=True)
    refused(res)


def offline_index(monkeypatch: pytest.MonkeyPatch, where: Path, wheels: Path | None = None) -> None:
    """The person's uv settings (their user configuration): no index, and `wheels` as the
    place packages come from; nothing is fetched."""
    config = where / "xdg-config"
    (config / "uv").mkdir(parents=True, exist_ok=True)
    links = f"find-links = [{str(wheels)!r}]\n" if wheels is not None else ""
    (config / "uv" / "uv.toml").write_text(f"no-index = true\n{links}")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("UV_CACHE_DIR", str(where / "uv-cache"))


def tiny_wheel(folder: Path) -> Path:
    """A dependency the spec needs, as a wheel built here (pip installs it offline)."""
    wheel = folder / "tinydep-1.0-py3-none-any.whl"
    info = "tinydep-1.0.dist-info"
    files = {
        "tinydep/__init__.py": "def total(xs):\n    return sum(xs)\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tinydep\nVersion: 1.0\n",
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            z.writestr(name, text)
    return wheel


def test_an_agent_that_installs_a_dependency_the_spec_needs_is_verified(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the tree declares it (requirements.txt): ralph builds its own environment with uv,
    # from where the person's settings say packages come from (a folder of wheels here)
    p = project
    venv_project(p)
    wheel = tiny_wheel(tmp_path)
    offline_index(monkeypatch, tmp_path, tmp_path)
    install = f"{sys.executable} -m pip install -q --no-index --no-deps --prefix .venv {wheel}"
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {
            "run": install,
            "write": {"calc.py": fix, "requirements.txt": "tinydep\n"},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert (site_of(p.root / ".venv") / "tinydep" / "__init__.py").is_file()


def test_a_dependency_ralph_cannot_install_is_refused_with_what_to_do(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # nothing to install it from (no index, no wheel): one line says what to do
    p = project
    venv_project(p)
    offline_index(monkeypatch, tmp_path)
    monkeypatch.setenv("UV_OFFLINE", "1")
    steps = [{"write": {"calc.py": RIGHT, "requirements.txt": "tinydep\n"}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert UNBUILT in res.stdout and "UV_FIND_LINKS" in res.stdout, res.stdout


def test_the_project_own_venv_is_verified_and_copied_in_the_private_store(
    project: Project,
) -> None:
    p = project
    venv_project(p)
    steps = [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert (site_of(start_envs(p.root) / ".venv") / "pytest" / "__init__.py").is_file()


def test_a_verifier_that_bends_the_environment_reaches_no_check(project: Project) -> None:
    # the verifier plants code that would break the right mean() at every Python start in the
    # project's .venv: the final verification's checks run in ralph's copy, and pass
    p = project
    site = venv_project(p)
    breaker = "import calc\ncalc.mean = lambda xs: 0\n"
    plant = f"printf %s {shlex.quote(breaker)} > {site / 'sitecustomize.py'}"
    steps = {
        "*": [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}],
        "VERIFY": [{"run": plant, "signal": "VERIFY_PASS"}],
    }
    res = p.run("run", "--agent-command", p.script(steps), "-n", "8")
    assert res.exit_code == 0, res.stdout
    assert p.state()["final_verification"]["passed"] is True
    assert (site / "sitecustomize.py").is_file()  # it was planted


def test_the_venv_python_swapped_for_a_script_that_passes_is_never_verified(
    project: Project,
) -> None:
    venv_project(project)
    python = project.root / ".venv" / "bin" / "python"
    fake = shlex.quote("#!/bin/sh\necho '1 passed'\nexit 0\n")
    swap = f"rm {python} && printf %s {fake} > {python} && chmod +x {python}"
    steps = [{"run": swap, "signal": "DONE"}, {"signal": "DONE"}]
    res = project.run("run", "--agent-command", project.script({"*": steps}), "-n", "3")
    refused(res)


def test_a_pth_path_to_a_sitecustomize_is_never_verified(project: Project, tmp_path: Path) -> None:
    site = venv_project(project)
    elsewhere = tmp_path / "elsewhere"
    res = bend(
        project,
        {elsewhere / "sitecustomize.py": FIX_CALC, site / "extra.pth": f"{elsewhere}\n"},
    )
    refused(res)


def test_a_node_modules_command_relinked_to_one_that_passes_is_never_verified(
    project: Project,
) -> None:
    # node_modules/.bin/jest as a package manager links it; the agent points it at a script
    # of its own that passes whatever the code does
    p = project
    runner = "import calc, sys; sys.exit(0 if calc.mean([1, 2, 3]) == 2 else 1)"
    p.write(
        {
            "calc.py": WRONG,
            "PROMPT.md": "---\ntest_command: node_modules/.bin/jest\n---\n# mean\nFix mean().\n",
            ".gitignore": ".ralph/\nnode_modules/\n",
            "node_modules/jest/bin/jest.js": f"#!/bin/sh\n{sys.executable} -c '{runner}'\n",
        }
    )
    jest = p.root / "node_modules" / "jest" / "bin" / "jest.js"
    jest.chmod(0o755)
    (p.root / "node_modules" / ".bin").mkdir()
    (p.root / "node_modules" / ".bin" / "jest").symlink_to("../jest/bin/jest.js")
    p.git("init", "-q")
    p.commit_all()
    fake = p.root.parent / "pass.sh"
    fake.write_text("#!/bin/sh\necho 'Tests: 1 passed, 1 total'\n")
    fake.chmod(0o755)
    relink = f"ln -sf {fake} node_modules/.bin/jest"
    steps = [{"run": relink, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    refused(res)


def test_an_agent_that_installs_the_project_editable_is_verified(project: Project) -> None:
    # `pip install -e .` of a src-layout library mid-run: setuptools' .pth (or finder) and
    # dist-info point into the project itself
    p = project
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "srclib", p.root, dirs_exist_ok=True)
    fix = "def intcomma(n: int) -> str:\n    return f'{n:,}'\n"
    check = ".venv/bin/python -m unittest tests.test_number"
    p.write(
        {
            "PROMPT.md": f"---\ntest_command: {check}\n---\n# number\nFix intcomma.\n",
            ".gitignore": ".ralph/\n.venv/\n*.egg-info/\n__pycache__/\nbuild/\n",
        }
    )
    p.git("init", "-q")
    p.commit_all()
    venv.create(p.root / ".venv", with_pip=False)
    offline = "--no-build-isolation --no-index --no-deps --prefix .venv"
    install = f"{sys.executable} -m pip install -q {offline} -e ."
    steps = [
        {"run": install, "write": {"src/tinyhuman/number.py": fix}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}
    assert list(site_of(p.root / ".venv").glob("__editable__*tinyhuman*"))


def test_in_lanes_a_bent_environment_is_never_verified(project: Project) -> None:
    # each lane's checks run in its worktree with the project's .venv linked in: the same
    # environment, judged against the record of the run's start
    p = project
    site = venv_project(p)
    p.write({"specs/other.spec.md": f"---\ntest_command: {CHECK}\n---\n# again\nmean().\n"})
    p.commit_all("a second spec")
    plant = f"printf %s {shlex.quote(FIX_CALC)} > {site / 'sitecustomize.py'}"
    steps = [{"run": plant, "signal": "DONE"}, {"signal": "DONE"}]
    script = p.script({"*": steps})
    res = p.run("run", "--agent-command", script, "--parallel", "2", "-n", "4")
    assert res.exit_code != 0, res.stdout
    assert set(p.counts().values()) == {0}  # not one DONE counted, in any lane


IDIOM = "PY := $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)\n"


UNITTEST = (
    "import unittest\nfrom calc import mean\n\n\nclass T(unittest.TestCase):\n"
    "    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n"
)


def make_project(p: Project) -> None:
    """No virtualenv when the run starts: `make test` runs `.venv/bin/python` if there is one."""
    p.write(
        {
            "calc.py": WRONG,
            "tests/__init__.py": "",
            "tests/test_calc.py": UNITTEST,
            "Makefile": f"{IDIOM}test:\n\t$(PY) -m unittest -v tests.test_calc\n",
            "PROMPT.md": "---\ntest_command: make test\n---\n# mean\nFix mean() in calc.py.\n",
            ".gitignore": ".ralph/\n.venv/\n__pycache__/\n",
        }
    )
    p.git("init", "-q")
    p.commit_all()


def test_a_fresh_venv_whose_python_is_a_script_is_never_verified(project: Project) -> None:
    p = project
    make_project(p)
    fake = shlex.quote("#!/bin/sh\necho 'Ran 1 test'\necho OK\nexit 0\n")
    plant = (
        f"mkdir -p .venv/bin && printf %s {fake} > .venv/bin/python && chmod +x .venv/bin/python"
    )
    res = p.run(
        "run", "--agent-command", p.script({"*": [{"run": plant, "signal": "DONE"}]}), "-n", "2"
    )
    refused(res)
    # the control: where the agent left it, the Makefile runs the script and passes
    assert (
        subprocess.run(["make", "test"], cwd=p.root, capture_output=True, check=False).returncode
        == 0
    )


def test_code_kept_in_the_venv_outside_site_packages_reaches_no_check(project: Project) -> None:
    p = project
    site = venv_project(p)
    shim = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '.venv', 'vendor'))\n"
        "from fixed import mean\n"
    )
    steps = [{"write": {".venv/vendor/fixed.py": RIGHT, "calc.py": shim}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "2")
    refused(res)
    assert site.is_dir() and subprocess.run(CHECK.split(), cwd=p.root, check=False).returncode == 0


def test_an_agent_that_makes_its_own_virtualenv_is_verified(project: Project) -> None:
    p = project
    make_project(p)
    steps = [
        {
            "run": f"{sys.executable} -m venv --without-pip .venv",
            "write": {"calc.py": RIGHT},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_an_agent_made_virtualenv_with_a_new_dependency_is_verified(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no virtualenv when the run began: the tree's new declaration is built by uv on the
    # system's interpreter, and that environment is the room's `.venv` the Makefile runs
    p = project
    make_project(p)
    wheel = tiny_wheel(tmp_path)
    offline_index(monkeypatch, tmp_path, tmp_path)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    make = f"{sys.executable} -m venv --without-pip .venv && "
    make += f"{sys.executable} -m pip install -q --no-index --no-deps --prefix .venv {wheel}"
    steps = [
        {"run": make, "write": {"calc.py": fix, "requirements.txt": "tinydep\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_a_pth_that_adds_an_ignored_folder_of_the_project_reaches_no_check(
    project: Project,
) -> None:
    # the code moves to a git-ignored folder, and a .pth in the project's .venv adds that
    # folder to sys.path: where the agent left it, the tests import it from there
    p = project
    site = venv_project(p)
    p.write({".gitignore": ".ralph/\n.venv/\n__pycache__/\nvendored/\n"})
    p.commit_all("vendored/ is ignored")
    steps = [
        {
            "run": f"printf %s {shlex.quote(str(p.root / 'vendored'))} > {site / 'extra.pth'}",
            "write": {"vendored/calc_impl.py": RIGHT, "calc.py": "from calc_impl import mean\n"},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    refused(res)
    assert subprocess.run(CHECK.split(), cwd=p.root, check=False).returncode == 0  # control


def test_a_person_pth_into_an_ignored_folder_never_reaches_back_into_the_project(
    project: Project,
) -> None:
    # the .pth was there when the run began; the agent edits the folder it names: the room's
    # environment names the room's folder (relative to its site-packages), never the project's
    p = project
    site = venv_project(p)
    p.write(
        {".gitignore": ".ralph/\n.venv/\n__pycache__/\nvendored/\n", "vendored/calc_impl.py": WRONG}
    )
    p.write({"calc.py": "from calc_impl import mean\n"})
    p.commit_all("the code lives in vendored/")
    (site / "vendored.pth").write_text(f"{p.root / 'vendored'}\n")
    steps = [{"write": {"vendored/calc_impl.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    refused(res)
    assert subprocess.run(CHECK.split(), cwd=p.root, check=False).returncode == 0  # control


def test_a_project_installed_editable_before_the_run_is_verified(project: Project) -> None:
    p = project
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "srclib", p.root, dirs_exist_ok=True)
    fix = "def intcomma(n: int) -> str:\n    return f'{n:,}'\n"
    p.write(
        {
            "PROMPT.md": "---\ntest_command: .venv/bin/python -m unittest tests.test_number\n"
            "---\n# number\nFix intcomma.\n",
            ".gitignore": ".ralph/\n.venv/\n*.egg-info/\n__pycache__/\nbuild/\n",
        }
    )
    p.git("init", "-q")
    p.commit_all()
    venv.create(p.root / ".venv", with_pip=False)
    offline = "--no-build-isolation --no-index --no-deps --prefix .venv"
    subprocess.run(
        f"{sys.executable} -m pip install -q {offline} -e .", shell=True, cwd=p.root, check=True
    )
    steps = [{"write": {"src/tinyhuman/number.py": fix}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_a_venv_kept_outside_the_project_and_linked_is_used_as_it_is(
    project: Project, tmp_path: Path
) -> None:
    # `.venv -> ~/venvs/proj`: outside the project, the system's (read, not copied)
    p = project
    venv_project(p)
    outside = tmp_path / "venvs" / "proj"
    outside.parent.mkdir()
    shutil.move(str(p.root / ".venv"), str(outside))
    (p.root / ".venv").symlink_to(outside, target_is_directory=True)
    steps = [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}
    assert (start_envs(p.root) / ".venv").resolve() == outside.resolve()


def test_a_declared_source_package_is_never_built_by_ralph(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # building a source distribution runs its setup.py as ralph, outside any sandbox: the
    # agent's code would run there. Wheels only: refused, and nothing of it ran.
    p = project
    venv_project(p)
    marker = tmp_path / "built.txt"
    offline_index(monkeypatch, tmp_path)
    setup = f"open({str(marker)!r}, 'w').write('ran')\nfrom setuptools import setup\nsetup()\n"
    files = {
        "evil/setup.py": setup,
        "evil/pyproject.toml": "[project]\nname = 'evil'\nversion = '1'\n",
        "requirements.txt": "./evil\n",
        "calc.py": RIGHT,
    }
    res = p.run(
        "run", "--agent-command", p.script({"*": [{"write": files, "signal": "DONE"}]}), "-n", "2"
    )
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert UNBUILT in res.stdout, res.stdout
    assert not marker.exists()


def test_a_declared_wheel_that_patches_every_python_start_is_refused(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the agent's own wheel, declared like any dependency: its .pth runs code at every start
    # (here: the fix of calc that the file itself lacks)
    p = project
    venv_project(p)
    wheel = tmp_path / "fixer-1.0-py3-none-any.whl"
    info = "fixer-1.0.dist-info"
    files = {
        "_fixcalc.py": FIX_CALC,
        "fixer.pth": "import _fixcalc\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: fixer\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            z.writestr(name, text)
    offline_index(monkeypatch, tmp_path, tmp_path)
    steps = [{"write": {"requirements.txt": "fixer\n"}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    assert res.exit_code != 0, res
    assert p.counts() == {"PROMPT.md": 0}
    assert "a declared package runs code at every Python start: fixer.pth" in res.stdout
