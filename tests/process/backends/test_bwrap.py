"""process/backends/bwrap.py: `--sandbox bwrap`'s command line (pure, no tool needed)."""

from __future__ import annotations

import itertools
from pathlib import Path

from ralph.process.backends import bwrap  # noqa: F401 -- the backend under test, through wrap
from ralph.process.sandbox import wrap
from tests.process.test_sandbox import ROOM, ROOT, SCRATCH, STORE, box, pairs


def test_bwrap_binds_the_project_the_cli_folders_and_a_private_tmp_read_only_elsewhere() -> None:
    argv, env = wrap(
        box(), ("/usr/bin/claude", "-p"), ROOT / "sub", {"A": "1"}, "tok", frozenset({"A"})
    )
    assert argv[0] == "/usr/bin/bwrap"
    assert argv[-3:] == ("--", "/usr/bin/claude", "-p")
    # the whole filesystem read-only first, then what may be written
    assert pairs(argv, "--ro-bind")[0] == ("/", "/")
    binds = pairs(argv, "--bind")
    assert (str(ROOT), str(ROOT)) in binds
    assert (str(SCRATCH / "tmp"), str(SCRATCH / "tmp")) in binds
    assert ("/home/u/.claude", "/home/u/.claude") in binds
    assert argv[argv.index("--chdir") + 1] == str(ROOT / "sub")
    assert env == {
        "A": "1",
        "TMPDIR": str(SCRATCH / "tmp"),
        "RALPH_SANDBOX": "bwrap",
        "IS_SANDBOX": "1",  # Claude Code run as root accepts bypassed prompts inside it
    }


def test_bwrap_dies_with_ralph_and_keeps_its_processes_in_their_own_pid_namespace() -> None:
    argv, _ = wrap(box(), ("/bin/true",), ROOT, {}, "tok")
    for flag in ("--die-with-parent", "--unshare-pid", "--new-session", "--unshare-user"):
        assert flag in argv
    assert ("--cap-drop", "ALL") in itertools.pairwise(argv)  # root inside holds no capability


def test_bwrap_hides_secrets_after_the_writable_binds_so_a_secret_inside_one_stays_hidden() -> None:
    argv, _ = wrap(box(deny_read=(Path("/home/u/.claude/secrets"),)), ("/bin/true",), ROOT, {}, "")
    hide = argv.index("/home/u/.claude/secrets")
    assert argv[hide - 1] == "--tmpfs"
    assert hide > argv.index("/home/u/.claude")
    assert ("/dev/null", "/home/u/.netrc") in pairs(argv, "--ro-bind")


def test_bwrap_the_sealed_run_writes_its_room_only() -> None:
    sandbox = box(deny_read=(STORE,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM, sealed=True)
    binds = pairs(argv, "--bind")
    assert binds == [(str(ROOM), str(ROOM))]
    ro = pairs(argv, "--ro-bind")
    assert (str(ROOT), str(ROOT)) in ro and ("/home/u/.claude", "/home/u/.claude") in ro
    tmpfs = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    # its TMPDIR is its own and empty; the host's /tmp stays, read-only (an interpreter or a
    # checkout may live there), so nothing written there outlives the run
    assert "/tmp" not in tmpfs and str(SCRATCH / "tmp") in tmpfs
    assert ("/", "/") in ro and "/tmp" not in [b for b, _ in binds]
    normal, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), ROOM, {}, "tok", room=ROOM)
    assert (str(ROOT), str(ROOT)) in pairs(normal, "--bind")  # a check's run writes the tree
