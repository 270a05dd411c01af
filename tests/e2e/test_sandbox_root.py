"""The sandbox holds for root. Run as root (a CI container, a dev box), bubblewrap used to keep
every capability: inside `--sandbox bwrap` the agent could unmount what hides ralph's store,
remount a read-only folder writable, or bind one anywhere. Played with a real agent program
through the real CLI and the real tools; as any other user the same attacks fail too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.store.disk.private import stores_root
from tests.conftest import Project
from tests.e2e.test_sandbox_run import box_project, disk_tmp, need, rotation_log

__all__ = ["box_project", "disk_tmp"]  # the fixtures, shared

pytestmark = [pytest.mark.slow]

CANARY = "canary-of-the-store-7c1f"

# Each attack prints one ATTACK line with its exit code; then what it could reach.
MOUNTER = """\
import os, pathlib, subprocess
stores, outside = os.environ["STORES"], pathlib.Path(os.environ["OUTSIDE"])
canary = pathlib.Path(stores) / "canary"
peek = pathlib.Path("peek")
peek.mkdir(exist_ok=True)
def attempt(name, *argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        said = (done.stdout + done.stderr).strip().replace(chr(10), " ")[:160]
        print(f"ATTACK {name} rc={done.returncode} {said}", flush=True)
    except OSError as exc:
        print(f"ATTACK {name} rc=-1 {exc}", flush=True)
attempt("umount", "umount", stores)
attempt("umount-lazy", "umount", "-l", stores)
attempt("remount", "mount", "-o", "remount,rw", "/")
attempt("remount-hooks", "mount", "-o", "remount,rw,bind", ".git/hooks")
try:  # ralph's own git would run it, outside the sandbox
    pathlib.Path(".git/hooks/post-commit").write_text("#!/bin/sh\\ntouch /escaped\\n")
    print("WROTE HOOK", flush=True)
except OSError as exc:
    print("hook refused:", exc, flush=True)
attempt("bind", "mount", "--bind", str(pathlib.Path(stores).parent), str(peek))
attempt("nested", "unshare", "-Urm", "sh", "-c", f"umount -l {stores}; cat {canary}")
for path in (canary, peek / "ralph" / "canary"):
    try:
        print("READ", path.read_text(), flush=True)
    except OSError as exc:
        print("unread:", exc, flush=True)
try:
    outside.write_text("x")
    print("WROTE OUTSIDE", flush=True)
except OSError as exc:
    print("outside refused:", exc, flush=True)
print("<ralph>CONTINUE</ralph>")
"""


def attacks(log: str) -> dict[str, int]:
    """name -> exit code of each ATTACK line of the rotation's log."""
    found = {}
    for line in log.splitlines():
        if line.startswith("ATTACK "):
            name, code = line.split()[1:3]
            found[name] = int(code.removeprefix("rc="))
    return found


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
def test_root_inside_the_sandbox_can_neither_unmount_remount_nor_bind(
    profile: str, box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(profile, monkeypatch)
    stores = stores_root()
    stores.mkdir(parents=True, exist_ok=True)
    (stores / "canary").write_text(CANARY)
    outside = disk_tmp / "outside"
    outside.mkdir()
    agent = disk_tmp / "mounter.py"
    agent.write_text(MOUNTER)
    monkeypatch.setenv("STORES", str(stores))
    monkeypatch.setenv("OUTSIDE", str(outside / "written"))
    box_project.write({"ralph.yaml": json.dumps({"sandbox": {"env": ["STORES", "OUTSIDE"]}})})
    result = box_project.run_subprocess(
        "run",
        "--sandbox",
        profile,
        "--agent-command",
        f"{sys.executable} {agent}",
        "-n",
        "1",
        "--headless",
    )
    assert result.exit_code == 3, result
    log = rotation_log(box_project)
    tried = attacks(log)
    assert set(tried) == {"umount", "umount-lazy", "remount", "remount-hooks", "bind", "nested"}
    # what hides the store and what is read-only stay so, whoever runs ralph
    for name in ("umount", "umount-lazy", "remount", "remount-hooks", "nested"):
        assert tried[name] != 0, log
    if profile == "bwrap":  # no capability at all: no mount of any kind
        assert tried["bind"] != 0, log
    # srt runs the command with capabilities in a nested namespace of its own (its seccomp
    # helper), where a bind may succeed; the mounts it inherited are locked, so the bind of
    # the folder above the store shows no store either (checked below)
    assert CANARY not in log
    assert "READ" not in log
    assert "WROTE OUTSIDE" not in log and not (outside / "written").exists()
    assert "WROTE HOOK" not in log and not (box_project.root / ".git/hooks/post-commit").exists()
    assert (stores / "canary").read_text() == CANARY


DONE = """\
#!/bin/sh
case "$RALPH_MODE" in
  VERIFY) echo '<ralph>VERIFY_PASS</ralph>' ;;
  *) echo '<ralph>DONE</ralph>' ;;
esac
"""


def test_as_root_an_honest_run_under_bwrap_still_reaches_verified(
    box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: no capability inside is no loss to honest work. The agent rotates, and the
    test command runs sandboxed in its room, writes there (and nowhere else: a check in a room
    writes that room only), and passes every time."""
    need("bwrap", monkeypatch)
    check = 'echo made > made.txt && test -f specs/a.spec.md && test "$RALPH_SANDBOX" = bwrap'
    check += ' && echo "1 passed"'
    spec = f"---\ntest_command: {json.dumps(check)}\n---\n# A\n\nDo it.\n"
    box_project.write({"specs/a.spec.md": spec})
    box_project.commit_all()
    agent = disk_tmp / "done.sh"
    agent.write_text(DONE)
    agent.chmod(0o755)
    result = box_project.run_subprocess(
        "run", "--sandbox", "bwrap", "--agent-command", str(agent), "-n", "6", "--headless"
    )
    assert result.exit_code == 0, result
    assert box_project.counts() == {"specs/a.spec.md": 3}
    # the first DONE's check ran in its room and passed (the next DONEs of the same tree reuse
    # its result), after the bar before the first rotation
    ran = [r for r in box_project.worklog("check") if r.get("name") == "test_command"]
    assert ran and all(r.get("passed") for r in ran), ran
    assert "tests' bar of specs/a.spec.md: 1 test ran" in result.stdout
    assert not (box_project.root / "made.txt").exists()  # written in its room, not the tree
