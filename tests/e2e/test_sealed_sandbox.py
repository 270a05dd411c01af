"""No channel back from the sealed run (checks/sealed.py): the code under test runs beside the
sealed files and may copy them where the agent looks. Under `--sandbox bwrap` the run (as every
run in a room) sees the work tree read-only and a TMPDIR of its own, and an agent hunting for
the files finds nothing; without a sandbox a copy into the work tree refuses the DONE."""

from __future__ import annotations

import json
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from ralph.store.disk.private import store_dir
from tests.conftest import SCRIPTED_AGENT, Project
from tests.e2e.test_sandbox_run import bwrap_reason, disk_tmp, need
from tests.e2e.test_sealed import CHEAT, RIGHT
from tests.store.person.test_sealed import SEALED_PATH, SECRET_WORD, calc_project

__all__ = ["disk_tmp"]  # the fixture, shared

LEAKY = """\
import glob, os, shutil
_own_tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "stolen")
for _f in glob.glob(os.path.join(os.getcwd(), "tests", "*.py")):
    for _d in ({project!r} + "/stolen", {tmp!r}, _own_tmp):
        try:
            os.makedirs(_d, exist_ok=True)
            shutil.copy(_f, _d)
        except OSError:
            pass
"""


def boxed_agent(p: Project, folder: Path, steps: dict[str, Any]) -> str:
    """The scripted agent's command, its script (and record of calls) in `folder`, which
    ralph.yaml lets the sandboxed agent write."""
    folder.mkdir(exist_ok=True)
    script = folder / "script.json"
    script.write_text(json.dumps(steps))
    p.write({"ralph.yaml": json.dumps({"sandbox": {"allow_write": [str(folder)]}})})
    p.git("add", "ralph.yaml")
    p.git("commit", "-qm", "sandbox")
    return f"{sys.executable} {SCRIPTED_AGENT} {script}"


def leaky(project: Path, tmp: str) -> str:
    """Code that is right, and at import copies every test file beside it out of its room."""
    return RIGHT + LEAKY.format(project=str(project), tmp=tmp)


@pytest.mark.slow
def test_without_a_sandbox_a_copy_into_the_work_tree_refuses_the_done(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    tmp = f"/tmp/ralph-stolen-{uuid.uuid4().hex}"
    try:
        step = {"write": {"calc/__init__.py": leaky(p.root, tmp)}, "signal": "DONE"}
        res = p.run("run", *p.fake({"*": [step]}), "-n", "2")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert res.exit_code == 3, res
    assert "sealed tests: the work tree changed while they ran" in res.stdout
    assert p.counts() == {"PROMPT.md": 0}


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
@pytest.mark.slow
def test_under_a_sandbox_an_agent_hunting_for_the_sealed_files_finds_nothing(
    disk_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    profile: str,
) -> None:
    need(profile, monkeypatch)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    calc_project(p)
    tmp = f"/tmp/ralph-stolen-{uuid.uuid4().hex}"
    found = disk_tmp / "agent"  # writable to the agent, outside the tree
    hunt = (
        # everywhere the agent may look: its home (ralph's stores are under it here), the
        # state folder, its TMPDIR, the host's /tmp where the code's copy would be, the tree
        f"grep -rl {SECRET_WORD} {disk_tmp / 'home'} {disk_tmp / 'state'} {store_dir(p.root)} "
        f'"$TMPDIR" {tmp} . > {found}/hunt-$RALPH_ITERATION.txt 2>/dev/null; '
        f"ls -a {store_dir(p.root)} >> {found}/hunt-$RALPH_ITERATION.txt 2>&1; true"
    )
    first = {"write": {"calc/__init__.py": leaky(p.root, tmp)}, "signal": "DONE"}
    steps = {"*": [first, {"run": hunt, "signal": "DONE"}]}
    steps["VERIFY"] = [{"run": hunt, "signal": "VERIFY_PASS"}]
    try:
        res = p.run(
            "run",
            "--sandbox",
            profile,
            "--agent-command",
            boxed_agent(p, disk_tmp / "agent", steps),
            "-n",
            "6",
        )
        assert res.exit_code == 0, res  # the copies were refused: the right code is verified
        assert f"sandbox {profile}" in res.stdout
        assert not Path(tmp).exists()  # the host's /tmp: the run had its own
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    hunts = sorted(found.glob("hunt-*.txt"))
    assert len(hunts) >= 3
    for hunted in hunts:
        assert SECRET_WORD not in hunted.read_text()
        assert "sealed" not in hunted.read_text()  # the store is an empty folder inside
    # no run in a room writes outside it: not the sealed run, not room A's (they look alike)
    assert not (p.root / "stolen").exists()
    assert not (p.root / SEALED_PATH).exists()


@pytest.mark.slow
def test_under_bwrap_a_hard_coding_agent_is_refused_too(
    disk_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason = bwrap_reason()
    if reason is not None:
        pytest.skip(reason)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    calc_project(p)
    step = {"write": {"calc/__init__.py": CHEAT}, "signal": "DONE"}
    res = p.run(
        "run",
        "--sandbox",
        "bwrap",
        "--agent-command",
        boxed_agent(p, disk_tmp / "agent", {"*": [step]}),
        "-n",
        "2",
    )
    assert res.exit_code == 3, res
    assert "DONE refused: sealed tests: 2 of 3 failed" in res.stdout
    assert sys.executable  # the sealed run found the interpreter inside the sandbox
