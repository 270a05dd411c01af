"""Where the checks' packages come from is the person's (store/environments/envbuild.py,
store/environments/pkgsources.py),
through the real CLI: an agent that leaves `mean()` wrong and plants a wheel of a few lines (made
with zipfile, no build step) whose pytest plugin patches `calc` at every test run, then names it
to the installer in each way a tree can (a path, `-f`, `-c`, `[tool.uv.sources]`, a `uv.toml`),
is never verified and the line names the source. Honest controls reach verified: a dependency
by name, the person's own wheelhouse and `uv.toml` from before the run, an agent's own local
wheel once a person accepts it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import Project, Result
from tests.e2e.test_environment import (
    FIX_CALC,
    RIGHT,
    offline_index,
    site_of,
    tiny_wheel,
    venv_project,
)
from tests.e2e.test_sandbox_run import disk_tmp, need

__all__ = ["disk_tmp"]  # a fixture: the bwrap runs' project lives on disk, outside /tmp

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")

# A pytest plugin, loaded by its entry point before any test imports calc: a correct mean()
# (the same patch as the bent environments of test_environment.py).
PLUGIN = FIX_CALC

# The agent's wheel maker: a program outside the tree, run by the agent's step.
MAKER = f"""
import sys, zipfile
dest = sys.argv[1]
info = "calcfix-1.0.dist-info"
files = {{
    "calcfix_plugin.py": {PLUGIN!r},
    info + "/METADATA": "Metadata-Version: 2.1\\nName: calcfix\\nVersion: 1.0\\n",
    info + "/WHEEL": "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    info + "/entry_points.txt": "[pytest11]\\ncalcfix = calcfix_plugin\\n",
}}
record = "".join(name + ",,\\n" for name in files) + info + "/RECORD,,\\n"
import os
os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
with zipfile.ZipFile(dest, "w") as z:
    for name, text in {{**files, info + "/RECORD": record}}.items():
        z.writestr(name, text)
"""

WHEEL = "calcfix-1.0-py3-none-any.whl"


def maker(tmp_path: Path) -> str:
    path = tmp_path / "make_wheel.py"
    path.write_text(MAKER)
    return f"{sys.executable} {path}"


def plant(p: Project, tmp_path: Path, wheel_at: str, files: dict[str, str], n: int = 3) -> Result:
    """The agent: makes its wheel at `wheel_at` (in the tree), writes `files`, leaves mean()
    wrong and says DONE, then DONE again."""
    steps = [
        {"run": f"{maker(tmp_path)} {wheel_at}", "write": files, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    return p.run("run", "--agent-command", p.script({"*": steps}), "-n", str(n))


def held(res: Result, source: str) -> None:
    assert res.exit_code != 0, res.stdout
    assert res.project.counts() == {"PROMPT.md": 0}
    assert "a package source no person accepted" in res.stdout, res.stdout
    assert source in res.stdout, res.stdout
    # the line points the person at `ralph accept`, never at uv's reach or at the agent alone
    line = next(x for x in res.stdout.splitlines() if "a package source no person" in x)
    assert "make its packages reachable" not in line, line
    assert "if that source is yours, accept it (`ralph accept`)" in line, line


def _index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "index"
    folder.mkdir()
    tiny_wheel(folder)
    offline_index(monkeypatch, tmp_path, folder)
    return folder


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's package index, as their environment names it (a folder of wheels)."""
    return _index(tmp_path, monkeypatch)


@pytest.fixture
def boxed(disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project and the person's index on disk, for runs under bwrap (its own /tmp)."""
    need("bwrap", monkeypatch)
    _index(disk_tmp, monkeypatch)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    return p


def test_the_planted_wheel_would_pass_the_wrong_code(project: Project, tmp_path: Path) -> None:
    # the control of every attack below: installed, the plugin makes the wrong mean() pass
    site = venv_project(project)
    subprocess.run([*maker(tmp_path).split(), str(tmp_path / WHEEL)], check=True)
    with zipfile.ZipFile(tmp_path / WHEEL) as z:
        z.extractall(site)
    run = subprocess.run(
        [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout


@pytest.mark.parametrize(
    ("files", "source"),
    [
        ({"requirements.txt": f"./wheels/{WHEEL}\n"}, f"requirements.txt: ./wheels/{WHEEL}"),
        ({"requirements.txt": "-f wheels\ncalcfix\n"}, "requirements.txt: -f wheels"),
        (
            {"requirements.txt": "--find-links=./wheels\ncalcfix\n"},
            "requirements.txt: --find-links=./wheels",
        ),
        (
            {"requirements.txt": "calcfix\n-c more/c.txt\n", "more/c.txt": "-f ../wheels\n"},
            "more/c.txt: -f ../wheels",
        ),
        (
            {"requirements.txt": "-r more/r.txt\n", "more/r.txt": f"../wheels/{WHEEL}\n"},
            f"more/r.txt: ../wheels/{WHEEL}",
        ),
        (
            {
                "requirements.txt": "calcfix\n",
                "constraints.txt": f"calcfix @ file:./wheels/{WHEEL}\n",
                "requirements-dev.txt": "-c constraints.txt\n",
            },
            f"constraints.txt: calcfix @ file:./wheels/{WHEEL}",
        ),
        (
            {
                "pyproject.toml": (
                    "[project]\nname = 'calc'\nversion = '1'\ndependencies = ['calcfix']\n"
                    f"[tool.uv.sources]\ncalcfix = {{ path = 'wheels/{WHEEL}' }}\n"
                )
            },
            "[tool.uv.sources] calcfix",
        ),
        (
            {"requirements.txt": "calcfix\n", "uv.toml": "find-links = ['wheels']\n"},
            "uv.toml: package-manager settings in the tree",
        ),
    ],
    ids=[
        "path",
        "f",
        "find-links",
        "constraint-f",
        "include",
        "constraint-url",
        "sources",
        "uvtoml",
    ],
)
def test_an_agent_made_local_wheel_is_held_with_its_line(
    project: Project, tmp_path: Path, index: Path, files: dict[str, str], source: str
) -> None:
    venv_project(project)
    res = plant(project, tmp_path, f"wheels/{WHEEL}", files)
    held(res, source)


def test_a_wheel_swapped_in_the_persons_wheelhouse_is_held(
    project: Project, tmp_path: Path, index: Path
) -> None:
    # the wheelhouse is the person's, its files are part of it: a wheel changed by the agent
    # (here: the plugin put in place of a file the person had there) waits for a person
    p = project
    venv_project(p)
    p.write({"requirements.txt": "-f wheels\n", f"wheels/{WHEEL}": "a placeholder\n"})
    p.commit_all()
    res = plant(p, tmp_path, f"wheels/{WHEEL}", {"requirements.txt": "-f wheels\ncalcfix\n"})
    held(res, "requirements.txt: -f wheels")


def test_uv_settings_in_the_tree_never_make_ralph_write_elsewhere(
    project: Project, tmp_path: Path, index: Path
) -> None:
    # a cache-dir or target in the tree's uv settings: never read, so never written
    p = project
    venv_project(p)
    elsewhere = tmp_path / "elsewhere"
    settings = f"cache-dir = '{elsewhere}/cache'\n[pip]\ntarget = '{elsewhere}/target'\n"
    steps = [
        {"write": {"requirements.txt": "tinydep\n", "uv.toml": settings}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    held(res, "uv.toml")
    assert not elsewhere.exists()


def test_an_include_that_is_a_named_pipe_never_hangs_the_build(
    project: Project, index: Path
) -> None:
    p = project
    venv_project(p)
    steps = [
        {
            "run": "mkfifo more.txt",
            "write": {"requirements.txt": "tinydep\n-r more.txt\n", "calc.py": RIGHT},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "4")
    # the pipe declares nothing (said at the next run's start); the named dependency is built
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_uv_settings_above_the_tree_are_never_read(
    project: Project, tmp_path: Path, index: Path
) -> None:
    # a uv.toml in .ralph/ (above a lane's worktree) or above the project: uv's upward search
    # would find it; ralph's uv runs in its own folder with --no-config
    p = project
    venv_project(p)
    wheels = tmp_path / "agent-wheels"
    subprocess.run([*maker(tmp_path).split(), str(wheels / WHEEL)], check=True)
    planted = f"find-links = ['{wheels}']\nno-index = true\n"
    steps = [
        {
            "run": f'mkdir -p .ralph && printf %s "{planted}" > .ralph/uv.toml',
            "write": {"requirements.txt": "calcfix\n"},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "3")
    assert res.exit_code != 0, res.stdout
    assert p.counts() == {"PROMPT.md": 0}
    assert "calcfix was not found" in res.stdout, res.stdout  # not where the person says


def test_an_agent_made_local_wheel_is_verified_once_a_person_accepts_it(
    project: Project, tmp_path: Path, index: Path
) -> None:
    # an honest local package (tinydep, as the agent vendored it): held, then accepted
    p = project
    venv_project(p)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    vendored = tiny_wheel(tmp_path)
    steps = [
        {
            "run": f"mkdir -p vendor && cp {vendored} vendor/",
            "write": {"calc.py": fix, "requirements.txt": "-f vendor\ntinydep\n"},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    script = p.script({"*": steps})
    res = p.run("run", "--agent-command", script, "-n", "2")
    held(res, "requirements.txt: -f vendor")
    listed = p.run("accept", "--yes")
    assert listed.exit_code == 0, listed.stdout
    assert "[sources]" in listed.stdout and "+ requirements.txt: -f vendor" in listed.stdout
    res = p.run("run", "--agent-command", p.script({"*": [{"signal": "DONE"}]}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_the_persons_wheelhouse_from_before_the_run_is_used(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = project
    venv_project(p)
    (p.root / "wheels").mkdir()
    tiny_wheel(p.root / "wheels")
    p.write({"requirements.txt": "--find-links wheels\n"})
    p.commit_all()
    offline_index(monkeypatch, tmp_path)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {
            "write": {"calc.py": fix, "requirements.txt": "--find-links wheels\ntinydep\n"},
            "signal": "DONE",
        },
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_the_persons_uv_toml_from_before_the_run_is_used(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = project
    venv_project(p)
    wheels = tmp_path / "house"
    wheels.mkdir()
    tiny_wheel(wheels)
    p.write({"uv.toml": f"find-links = ['{wheels}']\nno-index = true\n"})
    p.commit_all()
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {"write": {"calc.py": fix, "requirements.txt": "tinydep\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def test_the_persons_own_uv_settings_give_the_index(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # their user configuration ($XDG_CONFIG_HOME/uv/uv.toml) as the run began
    p = project
    venv_project(p)
    wheels = tmp_path / "house"
    wheels.mkdir()
    tiny_wheel(wheels)
    config = tmp_path / "config"
    (config / "uv").mkdir(parents=True)
    (config / "uv" / "uv.toml").write_text(f"find-links = ['{wheels}']\nno-index = true\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {"write": {"calc.py": fix, "requirements.txt": "tinydep\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


@pytest.mark.parametrize(
    "files",
    [
        {"setup.cfg": "[options]\ninstall_requires =\n    tinydep\n"},
        {
            "pyproject.toml": (
                "[project]\nname = 'calc'\nversion = '1'\n[dependency-groups]\ntest = ['tinydep']\n"
            )
        },
    ],
    ids=["setup.cfg", "dependency-groups"],
)
def test_a_dependency_declared_in_setup_cfg_or_a_group_is_built(
    project: Project, index: Path, files: dict[str, str]
) -> None:
    p = project
    venv_project(p)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [{"write": {"calc.py": fix, **files}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}


def boxed_agent(p: Project, files: dict[str, str], run: str = "") -> str:
    """An agent for bwrap (it writes only the project): writes `files` (and runs `run`),
    says DONE; the same every rotation, so a second DONE changes nothing."""
    agent = p.root.parent / "agent.py"
    agent.write_text(
        "import os, pathlib, subprocess\n"
        "if os.environ['RALPH_MODE'] == 'VERIFY':\n"
        "    print('<ralph>VERIFY_PASS</ralph>')\n"
        "    raise SystemExit\n"
        f"for name, text in {files!r}.items():\n"
        "    pathlib.Path(name).parent.mkdir(parents=True, exist_ok=True)\n"
        "    pathlib.Path(name).write_text(text)\n"
        f"if {run!r}:\n"
        f"    subprocess.run({run!r}, shell=True, check=True)\n"
        "print('<ralph>DONE</ralph>')\n"
    )
    return f"{sys.executable} {agent}"


def test_under_bwrap_a_new_dependency_is_built_and_verified(boxed: Project) -> None:
    p = boxed
    venv_project(p)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    agent = boxed_agent(p, {"calc.py": fix, "requirements.txt": "tinydep\n"})
    res = p.run("run", "--sandbox", "bwrap", "--agent-command", agent, "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert p.counts() == {"PROMPT.md": 3}
    assert not (site_of(p.root / ".venv") / "tinydep").exists()  # never the project's


def test_under_bwrap_an_agent_made_wheel_is_held(boxed: Project) -> None:
    p = boxed
    venv_project(p)
    files = {"requirements.txt": "-f wheels\ncalcfix\n"}
    agent = boxed_agent(p, files, f"{maker(p.root.parent)} wheels/{WHEEL}")
    res = p.run("run", "--sandbox", "bwrap", "--agent-command", agent, "-n", "3")
    held(res, "requirements.txt: -f wheels")


def test_an_index_that_cannot_be_reached_ends_the_run_and_is_not_the_agents_strike(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on: the index is down
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("UV_INDEX_URL", f"http://127.0.0.1:{port}/simple")
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    monkeypatch.setenv("UV_HTTP_TIMEOUT", "5")
    p = project
    venv_project(p)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {"write": {"calc.py": fix, "requirements.txt": "tinydep\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 1, res.stdout  # its own reason, after one rotation: no money burnt
    assert "the package index cannot be reached" in res.stdout, res.stdout
    assert "not counted against the agent" in res.stdout
    assert "circuit breaker" not in res.stdout
    assert p.state()["breaker"]["failures"] == 0, p.state()["breaker"]


def test_a_folder_of_wheels_the_persons_settings_name_gone_is_not_the_agents_strike(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the person's uv settings name a folder that is not there (moved, unmounted): the tree
    # asks for nothing wrong, so the run ends with its own line, the agent takes no strike
    offline_index(monkeypatch, tmp_path, tmp_path / "wheels-moved")
    p = project
    venv_project(p)
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    steps = [
        {"write": {"calc.py": fix, "requirements.txt": "tinydep\n"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "6")
    assert res.exit_code == 1, res.stdout
    assert "the package index cannot be reached" in res.stdout and "wheels-moved" in res.stdout
    assert p.state()["breaker"]["failures"] == 0, p.state()["breaker"]


def test_a_name_the_index_does_not_have_is_the_trees_refusal(project: Project, index: Path) -> None:
    # control: the index answered; the tree asked for what it does not have
    p = project
    venv_project(p)
    steps = [{"write": {"requirements.txt": "no-such-package\n"}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "2")
    assert res.exit_code == 3, res.stdout
    assert "DONE refused: environment" in res.stdout and "no-such-package" in res.stdout
    assert "make its packages reachable to uv" in res.stdout  # what uv's refusal needs
    assert "the package index cannot be reached" not in res.stdout


SHADOW_WHEEL = """
import sys, zipfile
dest = sys.argv[1]
info = "calcfix-1.0.dist-info"
files = {
    "calcfix/__init__.py": "",
    info + "/METADATA": "Metadata-Version: 2.1\\nName: calcfix\\nVersion: 1.0\\n",
    info + "/WHEEL": "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    info + "/entry_points.txt": "[console_scripts]\\npytest = calcfix:main\\n",
}
with zipfile.ZipFile(dest, "w") as z:
    for name, text in {**files, info + "/RECORD": ""}.items():
        z.writestr(name, text)
"""


def test_a_declared_packages_command_never_shadows_one_on_path(
    project: Project, tmp_path: Path, index: Path
) -> None:
    # a package of the person's index whose console script is named `pytest`: it would run
    # in place of the person's test runner
    maker_ = tmp_path / "shadow.py"
    maker_.write_text(SHADOW_WHEEL)
    subprocess.run(
        [sys.executable, str(maker_), str(index / "calcfix-1.0-py3-none-any.whl")], check=True
    )
    p = project
    venv_project(p)
    steps = [{"write": {"calc.py": RIGHT, "requirements.txt": "calcfix\n"}, "signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "2")
    assert res.exit_code != 0, res.stdout
    assert "a declared package's command shadows one on PATH: bin/pytest (from calcfix)" in (
        res.stdout
    ), res.stdout


def test_under_bwrap_no_check_reads_the_persons_uv_settings(
    boxed: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the person's uv settings may hold an index's token: ralph keeps them where no check reads
    p = boxed
    config = p.root.parent / "xdg-config" / "uv" / "uv.toml"
    config.write_text(config.read_text() + "# a token: SECRET-TOKEN-123\n")
    venv_project(p)
    finder = (
        "import os, sys\n"
        "envs = os.path.realpath('.venv/lib')\n"
        "while os.path.basename(envs) != 'envs' and envs != '/':\n"
        "    envs = os.path.dirname(envs)\n"
        "for folder, _, names in os.walk(os.path.dirname(envs)):\n"
        "    for name in names:\n"
        "        try:\n"
        "            data = open(os.path.join(folder, name), 'rb').read()\n"
        "        except OSError:\n"
        "            continue\n"
        "        if (b'SECRET-' + b'TOKEN-123') in data:  # not this file's own bytes\n"
        "            sys.exit('the token is readable: ' + os.path.join(folder, name))\n"
    )
    spec = p.root / "PROMPT.md"
    spec.write_text(spec.read_text().replace("test_command: ", "test_command: python3 find.py && "))
    p.write({"find.py": finder})
    p.commit_all()
    fix = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
    agent = boxed_agent(p, {"calc.py": fix, "requirements.txt": "tinydep\n"})
    res = p.run("run", "--sandbox", "bwrap", "--agent-command", agent, "-n", "6")
    assert res.exit_code == 0, res.stdout
    assert "the token is readable" not in res.stdout


def test_in_lanes_a_lanes_planted_wheel_is_held_and_the_other_lane_is_verified(
    project: Project, tmp_path: Path, index: Path
) -> None:
    p = project
    venv_project(p)
    spec = (p.root / "PROMPT.md").read_text()
    p.write({"specs/a.spec.md": spec, "specs/b.spec.md": spec})
    (p.root / "PROMPT.md").unlink()
    p.commit_all()
    steps = {
        "specs/a.spec.md": [
            {
                "run": f"{maker(tmp_path)} wheels/{WHEEL}",
                "write": {"requirements.txt": "-f wheels\ncalcfix\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
        ],
        "specs/b.spec.md": [{"write": {"calc.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}],
    }
    res = p.run("run", "--agent-command", p.script(steps), "--parallel", "2", "-n", "8")
    assert res.exit_code != 0, res.stdout
    assert p.counts()["specs/a.spec.md"] == 0
    assert "a package source no person accepted: requirements.txt: -f wheels" in res.stdout
