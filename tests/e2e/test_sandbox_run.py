"""What the sandbox really stops, with real bubblewrap and sandbox-runtime, and how a sandbox that
cannot start stops the run before any agent does (those run everywhere: fake tools)."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import Project, Result

E2E_BIN = Path(os.environ.get("RALPH_E2E_DIR", Path.home() / ".cache" / "ralph-e2e"))
E2E_BIN = E2E_BIN / "node_modules" / ".bin"

AGENT = """\
import os, pathlib, urllib.request
pathlib.Path(os.environ["RAN_MARKER"]).write_text("ran")
try:
    pathlib.Path(os.environ["OUTSIDE"]).write_text("x")
    print("WROTE OUTSIDE")
except OSError as exc:
    print(f"write outside refused: {exc}")
try:
    print("SECRET:", pathlib.Path(os.environ["SECRET_FILE"]).read_text())
except OSError as exc:
    print(f"secret refused: {exc}")
pathlib.Path("inside.txt").write_text("ok")
try:  # ralph's own git would run this outside the sandbox
    with open(".git/config", "a") as config:
        config.write("[core]\\n\\tfsmonitor = touch /escaped\\n")
    print("WROTE GIT CONFIG")
except OSError as exc:
    print(f"git config refused: {exc}")
(pathlib.Path(os.environ["TMPDIR"]) / "t").write_text("t")
print("sandbox:", os.environ.get("RALPH_SANDBOX"), "tmp:", os.environ["TMPDIR"])
for name in ("ALLOWED_URL", "DENIED_URL"):
    if os.environ.get(name):
        try:
            print(name, urllib.request.urlopen(os.environ[name], timeout=10).status)
        except Exception as exc:
            print(name, "refused:", exc)
print("<ralph>CONTINUE</ralph>")
"""


# What the escaping agent reads from its environment: named in ralph.yaml's sandbox.env.
AGENT_ENV = ["OUTSIDE", "SECRET_FILE", "RAN_MARKER"]


def bwrap_reason() -> str | None:
    """Why bubblewrap cannot run here, or None."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    probe = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"]
    done = subprocess.run([*probe, "true"], capture_output=True, timeout=30, check=False)
    if done.returncode != 0:
        return f"bubblewrap cannot run here: {done.stderr.decode().strip()}"
    return None


def need(profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    reason = bwrap_reason()
    if reason is not None:
        pytest.skip(reason)
    if profile == "srt":
        if shutil.which("socat") is None:
            pytest.skip("socat is not installed (apt-get install socat), srt needs it")
        if not (E2E_BIN / "srt").exists():
            pytest.skip(f"sandbox-runtime is not installed in {E2E_BIN} (`make e2e-agents`)")
        monkeypatch.setenv("PATH", f"{E2E_BIN}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture
def disk_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on disk, not under /tmp or /dev: bwrap gives the sandbox a /tmp of its own and
    srt rebuilds /dev, so what the tests look at from outside must live elsewhere."""
    base = "/var/tmp" if Path("/var/tmp").is_dir() else None
    path = Path(tempfile.mkdtemp(prefix="ralph-test-", dir=base))
    monkeypatch.setenv("HOME", str(path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(path / "state"))  # ralph's private stores
    (path / "home").mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def box_project(disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    project = Project(disk_tmp / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    project.write({"specs/a.spec.md": "# A\n\nDo it.\n"})
    return project


def setup_agent(project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The escaping agent's command; its targets outside the project in the environment."""
    secrets = disk_tmp / "secrets"
    secrets.mkdir()
    (secrets / "key").write_text("sk-very-secret")
    agent = disk_tmp / "agent.py"
    agent.write_text(AGENT)
    monkeypatch.setenv("OUTSIDE", str(disk_tmp / "outside.txt"))
    monkeypatch.setenv("SECRET_FILE", str(secrets / "key"))
    monkeypatch.setenv("RAN_MARKER", str(project.root / "ran.txt"))
    return f"{sys.executable} {agent}"


def rotation_log(project: Project) -> str:
    return (project.root / ".ralph" / "current.log").read_text()


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
@pytest.mark.slow
def test_an_agent_cannot_write_outside_the_project_or_read_a_named_secrets_folder(
    profile: str, box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(profile, monkeypatch)
    command = setup_agent(box_project, disk_tmp, monkeypatch)
    box_project.write(
        {
            "ralph.yaml": json.dumps(
                {"sandbox": {"deny_read": [str(disk_tmp / "secrets")], "env": AGENT_ENV}}
            )
        }
    )
    result = box_project.run_subprocess(
        "run", "--sandbox", profile, "--agent-command", command, "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    assert f"sandbox {profile}:" in result.stdout
    log = rotation_log(box_project)
    # stopped, and the rotation's log says so in the operating system's words
    assert not (disk_tmp / "outside.txt").exists()
    assert "write outside refused: [Errno 30] Read-only file system" in log
    assert "secret refused:" in log and "sk-very-secret" not in log
    assert "git config refused: [Errno 30] Read-only file system" in log
    assert "fsmonitor" not in (box_project.root / ".git" / "config").read_text()
    # what it may do works: the project, its private temporary folder
    assert (box_project.root / "inside.txt").read_text() == "ok"
    tmp = log.split(f"sandbox: {profile} tmp: ")[1].split()[0]
    assert tmp.startswith("/tmp/ralph-sandbox-")
    assert not Path(tmp).exists()  # removed with the run


class _Hits(http.server.BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[list[tuple[int, list[str]]]]:
    """Two small HTTP servers on 127.0.0.1: (port, paths requested)."""
    made: list[http.server.ThreadingHTTPServer] = []
    found: list[tuple[int, list[str]]] = []
    for _ in range(2):
        hits: list[str] = []
        handler = type("Handler", (_Hits,), {"hits": hits})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        made.append(server)
        found.append((server.server_address[1], hits))
    yield found
    for server in made:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_srt_lets_the_agent_reach_an_allowed_host_and_refuses_every_other(
    box_project: Project,
    disk_tmp: Path,
    servers: list[tuple[int, list[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need("srt", monkeypatch)
    command = setup_agent(box_project, disk_tmp, monkeypatch)
    (allowed, allowed_hits), (denied, denied_hits) = servers
    monkeypatch.setenv("ALLOWED_URL", f"http://127.0.0.1:{allowed}/ok")
    monkeypatch.setenv("DENIED_URL", f"http://127.0.0.1:{denied}/leak")
    names = [*AGENT_ENV, "ALLOWED_URL", "DENIED_URL"]  # a sandbox passes on only what is named
    config = {"sandbox": {"profile": "srt", "allow_hosts": [f"127.0.0.1:{allowed}"], "env": names}}
    box_project.write({"ralph.yaml": json.dumps(config)})
    result = box_project.run_subprocess("run", "--agent-command", command, "-n", "1", "--headless")
    assert result.exit_code == 3, result
    log = rotation_log(box_project)
    assert "ALLOWED_URL 200" in log
    assert "DENIED_URL refused: HTTP Error 403" in log
    assert allowed_hits == ["/ok"]
    assert denied_hits == []
    assert f"network only to 127.0.0.1:{allowed}" in result.stdout


@pytest.mark.slow
def test_check_commands_run_inside_the_sandbox_too(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("bwrap", monkeypatch)
    outside = disk_tmp / "check-wrote-here"
    check = f'touch {outside}; test "$RALPH_SANDBOX" = bwrap'
    spec = f"---\ntest_command: {json.dumps(check)}\n---\n# A\n\nDo it.\n"
    box_project.write({"specs/a.spec.md": spec})
    agent = disk_tmp / "done.sh"
    agent.write_text("#!/bin/sh\necho '<ralph>DONE</ralph>'\n")
    agent.chmod(0o755)
    result = box_project.run_subprocess(
        "run", "--sandbox", "bwrap", "--agent-command", str(agent), "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    assert box_project.counts() == {"specs/a.spec.md": 1}  # the check passed: it was inside
    assert not outside.exists()


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
@pytest.mark.slow
def test_a_rotation_cut_short_kills_everything_inside_the_sandbox_daemons_included(
    profile: str, box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(profile, monkeypatch)
    tag = f"ralph-sandbox-kill-{os.getpid()}-{time.monotonic_ns()}"
    agent = disk_tmp / "stay.py"
    agent.write_text(STAY.format(tag=tag))
    result = box_project.run_subprocess(
        "run",
        "--sandbox",
        profile,
        "--agent-command",
        f"{sys.executable} {agent}",
        "-n",
        "1",
        "--headless",
        "--timeout",
        "3",
    )
    assert result.exit_code == 3, result
    assert "timed out" in result.stdout
    # the sandbox's own helpers too (srt's proxy bridges name the run's private folder)
    scratch = rotation_log(box_project).split("tmp: ")[1].split()[0].rsplit("/", 1)[0]
    assert scratch.startswith("/tmp/ralph-sandbox-")
    end = time.monotonic() + 30  # a bound, not a guess: the loop ends as soon as they are gone
    while time.monotonic() < end and (_tagged(tag) or _tagged(scratch)):
        time.sleep(0.1)
    assert _tagged(tag) == []
    assert _tagged(scratch) == []


# A daemon in a session of its own, a child in its own process group, and the agent waiting.
STAY = """\
import os, subprocess, sys, time
print("tmp:", os.environ["TMPDIR"], flush=True)
sleep = [sys.executable, "-c", "import time; time.sleep(300)", "{tag}"]
subprocess.Popen(sleep, start_new_session=True)
subprocess.Popen(sleep, preexec_fn=os.setpgrp)
os.execv(sys.executable, sleep)
"""


def _tagged(tag: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if tag in " ".join(proc.info["cmdline"] or []):
            found.append(proc.pid)
    return found


# --- fail closed: these need no sandbox tool, they bring broken ones ---------------------------


def fake_tool(where: Path, name: str, body: str) -> None:
    where.mkdir(exist_ok=True)
    tool = where / name
    tool.write_text(f"#!/bin/sh\n{body}\n")
    tool.chmod(0o755)


def refused(result: Result) -> str:
    """The run refused to start: exit 1, one error line and a hint, and no agent ran."""
    assert result.exit_code == 1, result
    ran = result.project.root / "ran.txt"
    assert not ran.exists(), "the agent ran although the sandbox could not start"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and lines[1].startswith("hint: ")
    return result.stderr


def test_a_sandbox_that_fails_its_test_run_stops_the_run_before_any_agent(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = setup_agent(box_project, disk_tmp, monkeypatch)
    fake_tool(
        disk_tmp / "bin", "bwrap", "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1"
    )
    monkeypatch.setenv("PATH", f"{disk_tmp / 'bin'}{os.pathsep}{os.environ['PATH']}")
    result = box_project.run_subprocess("run", "--sandbox", "bwrap", "--agent-command", command)
    said = refused(result)
    assert "sandbox bwrap cannot start: bwrap failed a test run: bwrap: setting up uid map" in said
    assert "user namespaces" in said
    assert not (box_project.root / ".ralph" / "run-options.json").exists()


@pytest.mark.slow
def test_a_missing_sandbox_tool_stops_the_run_and_says_how_to_install_it(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = setup_agent(box_project, disk_tmp, monkeypatch)
    bin_dir = disk_tmp / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(bin_dir))  # git, and no sandbox tool at all
    box_project.write({"ralph.yaml": "sandbox: auto\n"})
    result = box_project.run_subprocess("run", "--agent-command", command)
    said = refused(result)
    assert "error: sandbox auto cannot start: srt not found on PATH" in said
    assert "npm install -g @anthropic-ai/sandbox-runtime" in said
    result = box_project.run_subprocess("run", "--sandbox", "bwrap", "--agent-command", command)
    assert "error: sandbox bwrap cannot start: bwrap not found on PATH" in refused(result)


DOCKER = """\
echo "$@" >> "$DOCKER_LOG"
case "$1" in
  image) [ -n "$DOCKER_DOWN" ] && { echo 'Cannot connect to the Docker daemon' >&2; exit 1; }
    echo ok ;;
  rm) ;;
  run) [ -n "$DOCKER_NESTED" ] && { echo 'docker: Error response from daemon' >&2; exit 125; }
    while [ "$1" != "ralph-agents:1" ]; do shift; done; shift; exec "$@" ;;
esac
"""


@pytest.mark.slow
def test_docker_runs_the_agent_in_the_image_and_removes_its_container_afterwards(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_tool(disk_tmp / "bin", "docker", DOCKER)
    fake_tool(
        disk_tmp / "bin", "agent", "echo \"in $RALPH_SANDBOX\"; echo '<ralph>CONTINUE</ralph>'"
    )
    monkeypatch.setenv("PATH", f"{disk_tmp / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_LOG", str(disk_tmp / "docker.log"))
    box_project.write({"ralph.yaml": "sandbox: {profile: docker, image: 'ralph-agents:1'}\n"})
    result = box_project.run_subprocess("run", "--agent-command", "agent", "-n", "1", "--headless")
    assert result.exit_code == 3, result
    assert "in docker" in rotation_log(box_project)
    calls = (disk_tmp / "docker.log").read_text().splitlines()
    assert calls[0] == "image inspect --format ok ralph-agents:1"
    assert calls[1].startswith("run --rm -i --init --name ralph-")  # the test run
    assert calls[1].endswith("ralph-agents:1 true")
    assert calls[2].startswith("run --rm -i --init --name ralph-")  # the rotation
    name = calls[2].split("--name ")[1].split()[0]
    assert calls[3] == f"rm --force {name}"
    assert len(calls) == 4


@pytest.mark.slow
def test_docker_without_its_daemon_stops_the_run(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = setup_agent(box_project, disk_tmp, monkeypatch)
    fake_tool(disk_tmp / "bin", "docker", DOCKER)
    monkeypatch.setenv("PATH", f"{disk_tmp / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DOCKER_LOG", str(disk_tmp / "docker.log"))
    monkeypatch.setenv("DOCKER_DOWN", "1")
    box_project.write({"ralph.yaml": "sandbox: {profile: docker, image: 'ralph-agents:1'}\n"})
    said = refused(box_project.run_subprocess("run", "--agent-command", command))
    assert "Cannot connect to the Docker daemon" in said
    assert "start the Docker daemon" in said
    # the image is there, but no container can start (a container that forbids nesting)
    monkeypatch.delenv("DOCKER_DOWN")
    monkeypatch.setenv("DOCKER_NESTED", "1")
    said = refused(box_project.run_subprocess("run", "--agent-command", command))
    assert "docker failed a test run: docker: Error response from daemon" in said
    calls = (disk_tmp / "docker.log").read_text().splitlines()
    name = calls[-2].split("--name ")[1].split()[0]
    assert calls[-1] == f"rm --force {name}"  # whatever the test run left is removed
    box_project.write({"ralph.yaml": "sandbox: docker\n"})
    said = refused(box_project.run_subprocess("run", "--agent-command", command))
    assert "error: sandbox docker: no image" in said


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
@pytest.mark.slow
def test_a_sandboxed_check_works_in_its_clean_room_and_sees_no_other_part_of_the_store(
    profile: str, box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(profile, monkeypatch)
    from ralph.store.disk.private import store_dir

    store = store_dir(box_project.root)
    # the check writes in its room, and fails if it can read the store's other records, or
    # when the room's interpreter settings (no bytecode, no user site) did not reach it
    check = f"echo x > made.txt && test -f specs/a.spec.md && ! cat {store}/snapshot.json"
    check += ' && test "$PYTHONDONTWRITEBYTECODE" = 1 && test "$PYTHONNOUSERSITE" = 1'
    check += ' && test -n "$PYTEST_ADDOPTS"'
    spec = f"---\ntest_command: {json.dumps(check)}\n---\n# A\n\nDo it.\n"
    box_project.write({"specs/a.spec.md": spec})
    box_project.commit_all()
    agent = disk_tmp / "done.sh"
    agent.write_text("#!/bin/sh\necho '<ralph>DONE</ralph>'\n")
    agent.chmod(0o755)
    result = box_project.run_subprocess(
        "run", "--sandbox", profile, "--agent-command", str(agent), "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    assert (store / "snapshot.json").exists()
    assert box_project.counts() == {"specs/a.spec.md": 1}, result  # the check passed


def test_a_sandboxed_check_runs_the_environment_ralph_copied(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room's `.venv` links into ralph's copy, in the hidden store: bwrap shows it to the
    check, read-only (the check cannot write it)."""
    need("bwrap", monkeypatch)
    import venv

    venv.create(box_project.root / ".venv", with_pip=False)
    check = ".venv/bin/python -c 'import sys; print(sys.prefix)' && ! touch .venv/pyvenv.cfg"
    spec = f"---\ntest_command: {json.dumps(check)}\n---\n# A\n\nDo it.\n"
    box_project.write({"specs/a.spec.md": spec, ".gitignore": ".venv/\n.ralph/\n"})
    box_project.commit_all()
    agent = disk_tmp / "done.sh"
    agent.write_text("#!/bin/sh\necho '<ralph>DONE</ralph>'\n")
    agent.chmod(0o755)
    result = box_project.run_subprocess(
        "run", "--sandbox", "bwrap", "--agent-command", str(agent), "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    assert box_project.counts() == {"specs/a.spec.md": 1}, result  # the check passed
