"""process/backends/srt.py: `--sandbox srt`'s settings and command line (pure, no tool needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.process.backends.srt import srt_settings
from ralph.process.sandbox import wrap
from tests.process.test_sandbox import ROOT, SCRATCH, box


def test_srt_runs_the_program_through_its_settings_with_this_runs_private_tmp() -> None:
    argv, env = wrap(
        box("srt"), ("/usr/bin/claude", "-p"), ROOT, {"A": "1"}, "tok", frozenset({"A"})
    )
    settings = str(SCRATCH / "srt-settings.json")
    assert argv[:4] == ("/usr/bin/srt", "--settings", settings, "--")
    assert argv[4:] == ("/usr/bin/env", f"TMPDIR={SCRATCH / 'tmp'}", "/usr/bin/claude", "-p")
    # srt itself makes its proxy sockets in a short folder of the run's own
    assert env["TMPDIR"] == str(SCRATCH)
    assert env["A"] == "1"


def test_srt_settings_allow_writes_only_where_the_sandbox_says_and_list_the_hosts() -> None:
    settings = srt_settings(box("srt"))
    fs = settings["filesystem"]
    assert fs["allowWrite"] == [
        str(ROOT),
        str(SCRATCH / "tmp"),
        "/home/u/.claude",
        "/home/u/.claude.json",
    ]
    assert fs["denyRead"] == ["/home/u/.ssh", "/home/u/.netrc"]
    # what may not be read may not be written either (a store under a writable folder)
    assert fs["denyWrite"] == [str(SCRATCH / "srt-settings.json"), *fs["denyRead"]]
    assert settings["network"] == {"allowedDomains": ["api.anthropic.com"], "deniedDomains": []}


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "localhost:3000", "[::1]:80", "localhost"])
def test_an_allowed_loopback_host_goes_through_the_proxy_not_the_sandboxs_own_loopback(
    host: str,
) -> None:
    argv, _ = wrap(box("srt", hosts=(host,)), ("/bin/true",), ROOT, {}, "")
    assert argv[4:9] == ("/usr/bin/env", "-u", "NO_PROXY", "-u", "no_proxy")


def test_without_a_loopback_host_no_proxy_is_left_as_srt_sets_it() -> None:
    argv, _ = wrap(box("srt", hosts=("api.openai.com:443",)), ("/bin/true",), ROOT, {}, "")
    assert "NO_PROXY" not in argv


def test_srt_the_sealed_run_writes_its_room_and_a_tmp_beside_it(tmp_path: Path) -> None:
    store = tmp_path / "state"
    room = store / "rooms" / "main.sealed" / "tree"
    room.mkdir(parents=True)
    (room.parent / "manifest.json").write_text("{}")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    sandbox = box("srt", scratch=scratch, deny_read=(store,))
    argv, _ = wrap(sandbox, ("/bin/sh", "-c", "t"), room, {}, "tok", room=room, sealed=True)
    settings = json.loads(Path(argv[argv.index("--settings") + 1]).read_text())["filesystem"]
    assert settings["allowWrite"] == [str(room), str(room.parent / "tmp")]
    assert str(room.parent / "manifest.json") in settings["denyRead"]
    assert f"TMPDIR={room.parent / 'tmp'}" in argv
