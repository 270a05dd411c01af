"""A real project, as a user would have it: a small `src/`-layout library with its own tests,
installed editable (`pip install -e .`) in the project's `.venv`, three specs each fixing one
function. Run with `--parallel` (each lane's checks must import the lane's code, not the main
checkout's) and one spec at a time; both reach verified."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project

FIXTURE = Path(__file__).parents[1] / "fixtures" / "srclib"
pytestmark = pytest.mark.slow

FIXES = {
    "ordinal": (
        "def ordinal(n: int) -> str:\n"
        "    if 10 <= n % 100 <= 20:\n"
        "        return f'{n}th'\n"
        "    return f\"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}\"\n"
    ),
    "number": "def intcomma(n: int) -> str:\n    return f'{n:,}'\n",
    "filesize": (
        "def naturalsize(n: int) -> str:\n"
        "    for unit, size in (('MB', 10**6), ('kB', 10**3)):\n"
        "        if n >= size:\n"
        "            return f'{n / size:.1f} {unit}'\n"
        "    return f'{n} Bytes'\n"
    ),
}


def spec(name: str, python: str = "python") -> str:
    return (
        "---\n"
        f"test_command: {python} -m unittest tests.test_{name}\n"
        "---\n"
        f"# {name}\n"
        f"Fix `src/tinyhuman/{name}.py` so that tests/test_{name}.py passes.\n"
    )


SPECS = {f"specs/{name}.spec.md": spec(name) for name in FIXES}


def editable_project(project: Project, *, activated: bool = True) -> Path:
    """The library in the project, a git repository, installed editable in `.venv`: activated
    (its bin first on PATH, as a user's shell has it), or named by the test command
    (`.venv/bin/python`). Nothing is fetched (the build backend is ralph's own setuptools)."""
    shutil.copytree(FIXTURE, project.root, dirs_exist_ok=True)
    specs = (
        SPECS
        if activated
        else {p: spec(n, ".venv/bin/python") for p, n in zip(SPECS, FIXES, strict=True)}
    )
    project.write({**specs, ".gitignore": ".ralph/\n.venv/\n*.egg-info/\n__pycache__/\n"})
    project.git("init", "-q", "-b", "main")
    project.commit_all()
    env_dir = project.root / ".venv"
    venv.create(env_dir, with_pip=False)
    offline = ("--no-build-isolation", "--no-index", "--no-deps", "--prefix", str(env_dir))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", *offline, "-e", str(project.root)],
        check=True,
        capture_output=True,
    )
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    if activated:
        project.monkeypatch.setenv("VIRTUAL_ENV", str(env_dir))
        project.monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert list(env_dir.glob("lib/python3*/site-packages/__editable__.tinyhuman*.pth"))
    return env_dir


def fixing_agent(project: Project) -> str:
    """Each spec's agent writes the fix of its function in its own tree, says DONE, then
    looks again and says DONE (nothing changed)."""
    steps = {
        path: [
            {"write": {f"src/tinyhuman/{name}.py": FIXES[name]}, "signal": "DONE"},
            {"signal": "DONE"},
        ]
        for path, name in zip(SPECS, FIXES, strict=True)
    }
    return project.script(steps)


def unittest_in(root: Path) -> subprocess.CompletedProcess[str]:
    python = str(root / ".venv" / "bin" / "python")
    return subprocess.run(
        [python, "-m", "unittest", "-q"], cwd=root, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("activated", [True, False], ids=["activated", "venv-path"])
def test_an_editable_src_layout_library_is_fixed_in_lanes_and_verified(
    project: Project, activated: bool
) -> None:
    editable_project(project, activated=activated)
    assert unittest_in(project.root).returncode != 0  # the bugs are real
    cmd = fixing_agent(project)
    res = project.run("run", "--agent-command", cmd, "--parallel", "3", "--headless")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    cwds = {c["cwd"] for c in project.calls()}
    assert str(project.root) not in cwds  # every fix was made in a lane...
    assert project.worklog("done_refused") == []  # ...and its checks tested the lane's code
    assert unittest_in(project.root).returncode == 0  # the merged fixes, in the main tree
    assert project.git("status", "--porcelain") == ""


def test_the_same_project_one_spec_at_a_time(project: Project) -> None:
    editable_project(project)
    cmd = fixing_agent(project)
    res = project.run("run", "--agent-command", cmd, "--headless")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    assert unittest_in(project.root).returncode == 0


def test_a_lane_says_when_its_checks_import_code_from_outside_its_tree(project: Project) -> None:
    # The environment maps a folder the lane's tree does not have (an untracked, ignored
    # `vendored/`): the lane's checks import it from the main checkout, and the refusal says so.
    editable_project(project)
    project.write({".gitignore": ".ralph/\n.venv/\n*.egg-info/\n__pycache__/\nvendored/\n"})
    project.commit_all("ignore vendored/")
    project.write({"vendored/extra.py": "VALUE = 1\n"})
    site = next((project.root / ".venv").glob("lib/python3*/site-packages"))
    (site / "vendored.pth").write_text(str(project.root / "vendored") + "\n")
    steps = {path: [{"write": {"x.txt": "x\n"}, "signal": "DONE"}] for path in SPECS}
    res = project.run(
        "run",
        "--agent-command",
        project.script(steps),
        "--parallel",
        "3",
        "--headless",
        "--max-iterations",
        "3",
    )
    assert res.exit_code != 0, res
    line = f"the checks may import code from outside this tree: {project.root / 'vendored'}"
    handoffs = [p.read_text() for p in (project.root / ".ralph" / "handoffs").glob("*.md")]
    assert len(handoffs) == 3 and all(line in h for h in handoffs), handoffs
    # the failing test's own first line, then where the checks may have imported from
    said = [x for x in res.stdout.splitlines() if "DONE refused: test_command: exit code 1" in x]
    assert said and all("; error: FAIL: " in x and "; the checks may import" in x for x in said)


JS_PACKAGES = {
    "greet": ("n) => `hi ${n}`", "n) => `hello, ${n}!`"),
    "shout": ("s) => s", "s) => s.toUpperCase()"),
}


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs node and npm")
def test_a_javascript_workspace_package_is_fixed_in_lanes_and_verified(project: Project) -> None:
    # npm links node_modules/<pkg> to the project's packages/<pkg>; node in a lane would walk
    # up to the project's node_modules and test the main checkout's package.
    files = {
        "package.json": '{"name": "app", "private": true, "workspaces": ["packages/*"]}\n',
        ".gitignore": ".ralph/\nnode_modules/\n",
    }
    specs: dict[str, str] = {}
    for name, (wrong, _) in JS_PACKAGES.items():
        files[f"packages/{name}/package.json"] = f'{{"name": "{name}", "main": "index.js"}}\n'
        files[f"packages/{name}/index.js"] = f"module.exports = ({wrong};\n"
        expected = "hello, ada!" if name == "greet" else "ADA"
        files[f"test/{name}.test.js"] = (
            f"const assert = require('node:assert');\n"
            f"assert.strictEqual(require('{name}')('ada'), "
            f"'{expected}');\nconsole.log('1 passed');\n"
        )
        specs[f"specs/{name}.spec.md"] = (
            f"---\ntest_command: node test/{name}.test.js\n---\n# {name}\nFix packages/{name}.\n"
        )
    project.write({**files, **specs})
    project.git("init", "-q", "-b", "main")
    project.commit_all()
    subprocess.run(
        ["npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=project.root,
        check=True,
        capture_output=True,
    )
    assert (project.root / "node_modules" / "greet").is_symlink()
    project.commit_all("package-lock.json")  # as a user commits it
    steps = {
        f"specs/{name}.spec.md": [
            {
                "write": {f"packages/{name}/index.js": f"module.exports = ({right};\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
        ]
        for name, (_, right) in JS_PACKAGES.items()
    }
    res = project.run("run", *project.fake(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(specs, 3)
    assert project.worklog("done_refused") == []
    assert project.git("status", "--porcelain") == ""


def real_cli_steps(agent: str, name: str) -> list[dict[str, Any]]:
    """The model's answers that write the fix of `name` with the CLI's own tools (Claude
    Code writes over a file only once it has read it)."""
    path = f"{{cwd}}/src/tinyhuman/{name}.py"
    if agent == "codex":
        command = f"cat > {path} <<'PYEOF'\n{FIXES[name]}PYEOF\n"
        return [
            {"text": "Fixing.", "tool_use": {"name": "exec_command", "input": {"cmd": command}}}
        ]
    write = {"file_path": path, "content": FIXES[name]}
    return [
        {"text": "Reading.", "tool_use": {"name": "Read", "input": {"file_path": path}}},
        {"text": "Fixing.", "tool_use": {"name": "Write", "input": write}},
    ]


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_real_clis_fix_the_library_in_lanes(
    agent: str, project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.e2e.test_agent_clis import need, put_on_path, ralph_yaml, setup_for

    need(agent)
    editable_project(project)
    # Each spec carries a marker; the mock answers a conversation whose prompt holds it (every
    # rotation of that spec, in whichever lane and order) by writing the fix, then DONE.
    rules = [
        {
            "contains": f"MARK-{name.upper()}",
            "steps": [*real_cli_steps(agent, name), {"text": "Fixed. <ralph>DONE</ralph>"}],
        }
        for name in FIXES
    ]
    script = {"rotations": [], "prompt_rotations": rules, "exhausted_rotations": "error"}
    mock = mock_llm(script, project.root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    project.write(
        {
            **{
                p: spec(n) + f"Marker: MARK-{n.upper()}\n"
                for p, n in zip(SPECS, FIXES, strict=True)
            },
            "ralph.yaml": ralph_yaml(agent, setup),
        }
    )
    project.commit_all("specs with markers")
    res = project.run_subprocess("run", "--plain", "--parallel", "3", "-n", "20", timeout=900)
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    assert project.worklog("done_refused") == []
    assert unittest_in(project.root).returncode == 0
    assert not [r for r in mock.requests() if r.get("kind") == "blocked_egress"]
