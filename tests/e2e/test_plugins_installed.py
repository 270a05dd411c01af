"""The docs' example plugins (docs/how-to/write-a-plugin.md), installed with `pip install` into a
virtual environment as a person would, drive a real run: the notifier hears every event in
order, the agent of its own reaches verified; plugins that raise, hang or meddle are contained
and named, and the run is the run without them; a plugin in the project's folder never loads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from ralph.schemas.catalog import SCHEMA_VERSION
from tests.schemas.test_catalog import problems
from tests.slowness import did

DOC = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "write-a-plugin.md"
FILE = re.compile(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```", re.DOTALL)

UNRULY = {
    "pyproject.toml": """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "ralph-unruly"
version = "0.1"

[tool.setuptools]
py-modules = ["unruly"]

[project.entry-points.ralph]
unruly-raiser = "unruly:Raiser"
unruly-hanger = "unruly:Hanger"
unruly-meddler = "unruly:Meddler"
unruly-recorder = "unruly:Recorder"
""",
    "unruly.py": """\
import json
import os
import time

from ralph.plugins.hookspecs import hookimpl


class Raiser:
    @hookimpl
    @staticmethod
    def ralph_event(event):
        raise RuntimeError("raised on purpose")


class Hanger:
    @hookimpl
    @staticmethod
    def ralph_rotation_started(event):
        time.sleep(3600)


class Recorder:
    @hookimpl
    @staticmethod
    def ralph_event(event):
        with open(os.environ["UNRULY_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(event) + "\\n")


class Meddler:
    @hookimpl
    @staticmethod
    def ralph_rotation_ended(event):
        event["done_count"] = 3  # its own copy: nothing ralph holds
        event["matrix"].clear()
        return {"done_count": 3}
""",
}


def _example(folder: Path) -> Path:
    """The docs' example, file by file, exactly as the page shows it."""
    files = FILE.findall(DOC.read_text(encoding="utf-8"))
    assert {name for name, _ in files} >= {"pyproject.toml", "ralph_hello/agent.py"}
    for name, text in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _venv(where: Path, *packages: Path) -> Path:
    """A new virtual environment that sees ralph's own (a .pth), with `packages` installed by
    pip from their folders, offline."""
    did("starts pip and ralph as processes")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "ralph-env.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    pip += ["--no-index", "--no-build-isolation", "--no-deps"]
    subprocess.run([*pip, *map(str, packages)], check=True, capture_output=True)
    return python


def _project(root: Path, yaml: str = "") -> Path:
    root.mkdir()
    (root / "specs").mkdir()
    (root / "specs" / "hello.spec.md").write_text("# hello\n- [ ] hello.txt says hello\n")
    (root / ".gitignore").write_text(".ralph/\n")
    if yaml:
        (root / "ralph.yaml").write_text(yaml)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    return root


def _ralph(python: Path, root: Path, log: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RALPH_HELLO_LOG": str(log), "UNRULY_LOG": f"{log}.full"}
    return subprocess.run(
        [str(python), "-m", "ralph", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _story(root: Path) -> list[tuple[Any, ...]]:
    """The worklog's records, without times and notices: what the run did."""
    out = []
    for record in _lines(root / ".ralph" / "worklog.jsonl"):
        if record.get("event") in ("notice", "budget"):
            continue
        kept = {
            k: v
            for k, v in record.items()
            if not re.search(
                r"ts|time|elapsed|_s$|seconds|overhead|run_id|started|ended|log|pid", k
            )
        }
        out.append(
            (
                record.get("event"),
                record.get("spec"),
                record.get("signal"),
                record.get("done_count"),
            )
        )
        del kept
    return out


@pytest.mark.slow
def test_installed_plugins_drive_a_run_and_unruly_ones_change_nothing(tmp_path: Path) -> None:
    hello = _example(tmp_path / "ralph-hello")
    unruly = tmp_path / "ralph-unruly"
    unruly.mkdir()
    for name, text in UNRULY.items():
        (unruly / name).write_text(text)
    python = _venv(tmp_path / "venv", hello, unruly)

    elsewhere = tmp_path / "elsewhere"  # not the folder the venv is in: that one is refused
    elsewhere.mkdir()
    listed = _ralph(python, elsewhere, tmp_path / "x.jsonl", "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    names = {p["name"]: p for p in json.loads(listed.stdout)["plugins"]}
    assert names["hello-agent"]["distribution"] == "ralph-hello"
    assert names["hello-agent"]["version"] == "1.0"
    assert names["hello-agent"]["source"].startswith(str(tmp_path / "venv"))

    # the control: the same run with the unruly plugins disabled by the person's ralph.yaml
    off = "plugins:\n  disable: [unruly-raiser, unruly-hanger, unruly-meddler]\n"
    quiet, noisy = _project(tmp_path / "quiet", off), _project(tmp_path / "noisy")
    calm = _ralph(python, quiet, tmp_path / "quiet.jsonl", "run", "--agent", "hello", "--headless")
    assert calm.returncode == 0, calm.stdout + calm.stderr  # the agent of its own: verified
    assert (quiet / "hello.txt").read_text() == "hello\n"
    rough = _ralph(python, noisy, tmp_path / "noisy.jsonl", "run", "--agent", "hello", "--headless")
    assert rough.returncode == 0, rough.stdout + rough.stderr

    # contained and named, one line each
    for name, what in (
        ("unruly-raiser", "ralph_event raised RuntimeError: raised on purpose"),
        ("unruly-hanger", "ralph_rotation_started took over 5 s"),
    ):
        line = f"plugin {name}: {what}; left out, the run goes on"
        assert rough.stdout.count(line) == 1, rough.stdout
        assert line not in calm.stdout
    # the run is the run without them: the same records, counts and state
    assert _story(noisy) == _story(quiet)
    state = json.loads((noisy / ".ralph" / "state.json").read_text())
    assert [s["done_count"] for s in state["specs"]] == [3]

    # the notifier heard every event, in order, once (notices of the unruly ones aside)
    heard = [e["event"] for e in _lines(tmp_path / "quiet.jsonl")]
    assert heard[0] == "run_started" and heard[-1] == "run_ended"
    ends = [r for r in _lines(quiet / ".ralph" / "worklog.jsonl") if r["event"] == "rotation_end"]
    assert heard.count("verification_started") == 1  # the final verification: a rotation too
    assert heard.count("rotation_started") == heard.count("rotation_ended") == len(ends) + 1
    # every argument a hook got follows the hook schema, versioned like ralph's other outputs
    for event in _lines(Path(f"{tmp_path / 'noisy.jsonl'}.full")):
        assert problems("hook", event) == [], event
        assert event["schema_version"] == SCHEMA_VERSION
    assert [e for e in heard if e != "notice"] == [
        e["event"] for e in _lines(tmp_path / "noisy.jsonl") if e["event"] != "notice"
    ]


@pytest.mark.slow
def test_a_plugin_in_the_projects_folder_is_never_loaded(tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv", _example(tmp_path / "ralph-hello"))
    project = _project(tmp_path / "project")
    # what an agent could leave in the tree: a module and its dist-info, found first on
    # sys.path when ralph runs as `python -m ralph` from the project
    (project / "sneaky.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('RAN').write_text('x')\n"
        "from ralph.plugins.hookspecs import hookimpl\n"
        "@hookimpl\ndef ralph_event(event):\n    pass\n"
    )
    info = project / "sneaky-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sneaky\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ralph]\nsneaky = sneaky\n")
    listed = _ralph(python, project, tmp_path / "x.jsonl", "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert "sneaky" not in {p["name"] for p in data["plugins"]}
    assert "hello-notifier" in {p["name"] for p in data["plugins"]}  # the control: the person's
    (left,) = [r for r in data["left_out"] if r["name"] == "sneaky"]
    assert "which an agent may write" in left["reason"]
    assert not (project / "RAN").exists()


def _checked(text: str) -> str:
    return (
        "---\nchecks:\n  - method: hello_file\n"
        f"    config: {text}\n---\n# hello\n- [ ] hello.txt says hello\n"
    )


@pytest.mark.slow
def test_a_plugins_check_method_is_read_by_its_model_and_decides(tmp_path: Path) -> None:
    """The docs' check method, installed by the person: a spec names it in its front matter,
    its model reads the `config:` (a wrong key is one line before any agent runs), and it
    decides the DONE like one of ralph's own."""
    python = _venv(tmp_path / "venv", _example(tmp_path / "ralph-hello"))
    run = ("run", "--agent", "hello", "--headless")

    passes = _project(tmp_path / "passes")
    (passes / "specs" / "hello.spec.md").write_text(_checked("{path: hello.txt, text: hello}"))
    done = _ralph(python, passes, tmp_path / "p.jsonl", *run)
    assert done.returncode == 0, done.stdout + done.stderr
    records = _lines(passes / ".ralph" / "worklog.jsonl")
    checks = [r for r in records if r["event"] == "check" and r["method"] == "hello_file"]
    assert len(checks) >= 3 and all(c["passed"] for c in checks), checks  # each DONE's, VERIFY's

    # the same check asking for what the agent never writes: every DONE refused, by it
    fails = _project(tmp_path / "fails")
    (fails / "specs" / "hello.spec.md").write_text(_checked("{path: hello.txt, text: goodbye}"))
    refused = _ralph(python, fails, tmp_path / "f.jsonl", *run, "--max-iterations", "2")
    assert refused.returncode != 0, refused.stdout
    state = json.loads((fails / ".ralph" / "state.json").read_text())
    assert [s["done_count"] for s in state["specs"]] == [0]
    assert "hello.txt does not say 'goodbye'" in refused.stdout

    # a key its model does not know: one line naming the spec and the key, no agent ran
    typo = _project(tmp_path / "typo")
    (typo / "specs" / "hello.spec.md").write_text(_checked("{path: hello.txt, txet: hello}"))
    bad = _ralph(python, typo, tmp_path / "t.jsonl", *run)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    said = "specs/hello.spec.md: front matter: checks[0].config: text: Field required"
    assert said in bad.stderr, bad.stderr
    assert not (typo / "hello.txt").exists()
