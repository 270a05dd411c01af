"""The environment the tests run in cannot be bent (checks/envguard.py), through the real CLI: a
project with its own `.venv` (a real pytest in it), an agent program that leaves `mean()` wrong
and bends the environment so the test passes anyway. Never verified. Honest agents (a new
dependency installed with pip, the project's `.venv` as it is) reach verified."""

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

from ralph.checks.envguard import EnvGuard
from ralph.specs.frontmatter import parse_front_matter
from ralph.store.envrecord import RECORD_FILE
from ralph.store.private import store_dir
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


def refused(res: Result, what: str) -> None:
    """Never verified: every DONE refused, for the environment."""
    assert res.exit_code != 0, res.stdout
    assert res.project.counts() == {"PROMPT.md": 0}
    assert "the environment the checks run in was changed" in res.stdout, res
    assert what in res.stdout, res.stdout


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
    refused(res, f"a .pth file that runs code at every Python start: {site.resolve()}/zz.pth")


def test_a_sitecustomize_in_the_venv_is_never_verified(project: Project) -> None:
    site = venv_project(project)
    res = bend(project, {site / "sitecustomize.py": FIX_CALC})
    refused(res, f"a module Python runs at every start: {site.resolve()}/sitecustomize.py")


def test_a_usercustomize_in_the_user_site_is_never_verified(project: Project) -> None:
    venv_project(project, system_site=True)  # such a venv's Python reads the user site
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    user_site = Path(os.environ["HOME"], ".local", "lib", version, "site-packages")  # conftest's
    res = bend(project, {user_site / "usercustomize.py": FIX_CALC})
    refused(res, "a module Python runs at every start")
    refused(res, "usercustomize.py")


def test_a_file_of_pytest_changed_is_never_verified(project: Project) -> None:
    site = venv_project(project)
    res = bend(project, {site / "pytest" / "__init__.py": FIX_CALC}, append=True)
    refused(res, f"a file of the test runner changed: {site.resolve()}/pytest/__init__.py")


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
    project: Project, tmp_path: Path
) -> None:
    p = project
    venv_project(p)
    wheel = tiny_wheel(tmp_path)
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
    assert "environment" not in res.stdout


def test_the_project_own_venv_is_verified_and_recorded_in_the_private_store(
    project: Project,
) -> None:
    p = project
    site = venv_project(p)
    steps = [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    record = (store_dir(p.root) / RECORD_FILE).read_text()
    assert str(site.resolve()) in record and "pytest/__init__.py" in record


def test_a_verifier_that_bends_the_environment_never_passes_the_final_verification(
    project: Project,
) -> None:
    p = project
    site = venv_project(p)
    p.write({"ralph.yaml": "max_verification_failures: 1\n"})
    plant = f"printf %s {shlex.quote(FIX_CALC)} > {site / 'sitecustomize.py'}"
    steps = {
        "*": [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}],
        # the verifier plants code Python runs at every start (the tree itself untouched)
        "VERIFY": [{"run": plant, "signal": "VERIFY_PASS"}],
    }
    res = p.run("run", "--agent-command", p.script(steps), "-n", "8")
    assert res.exit_code != 0, res.stdout
    assert "every spec verified" not in res.stdout
    final = p.state()["final_verification"]
    assert final["passed"] is False
    assert "the environment the checks run in was changed" in final["last_failure"]


def test_after_a_killed_run_the_earlier_record_is_kept(tmp_path: Path) -> None:
    # a run killed mid-rotation: what its agent did to the environment stays the agent's; a
    # run that ended records the environment anew (a person may have installed something)
    root = tmp_path / "proj"
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    checked = [parse_front_matter("PROMPT.md", "---\ntest_command: 'true'\n---\n# x\n")]
    guard, env = EnvGuard(root), {"PATH": ""}
    guard.start(env, [None], keep=False)
    assert not (store_dir(root) / RECORD_FILE).exists()  # no spec runs checks: nothing to do
    guard.start(env, checked, keep=False)
    (site / "sitecustomize.py").write_text("")
    guard.start(env, checked, keep=True)
    assert guard.refusal(env) == (
        "the environment the checks run in was changed: a module Python runs at every start: "
        f"{site.resolve()}/sitecustomize.py"
    )
    guard.start(env, checked, keep=False)
    assert guard.refusal(env) is None


def test_the_venv_python_swapped_for_a_script_that_passes_is_never_verified(
    project: Project,
) -> None:
    venv_project(project)
    python = project.root / ".venv" / "bin" / "python"
    fake = shlex.quote("#!/bin/sh\necho '1 passed'\nexit 0\n")
    swap = f"rm {python} && printf %s {fake} > {python} && chmod +x {python}"
    steps = [{"run": swap, "signal": "DONE"}, {"signal": "DONE"}]
    res = project.run("run", "--agent-command", project.script({"*": steps}), "-n", "3")
    refused(res, f"the virtualenv's interpreter or settings changed: {python}")


def test_a_pth_path_to_a_sitecustomize_is_never_verified(project: Project, tmp_path: Path) -> None:
    site = venv_project(project)
    elsewhere = tmp_path / "elsewhere"
    res = bend(
        project,
        {elsewhere / "sitecustomize.py": FIX_CALC, site / "extra.pth": f"{elsewhere}\n"},
    )
    refused(res, f"on a path {site.resolve()}/extra.pth adds: {elsewhere}/sitecustomize.py")


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
    refused(res, "a command of node_modules/.bin changed: ")


def test_an_agent_that_installs_the_project_editable_is_verified(project: Project) -> None:
    # `pip install -e .` of a src-layout library mid-run: setuptools' .pth (or finder) and
    # dist-info point into the project itself
    p = project
    shutil.copytree(Path(__file__).parent / "fixtures" / "srclib", p.root, dirs_exist_ok=True)
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
    assert "the environment the checks run in was changed" in res.stdout, res.stdout
