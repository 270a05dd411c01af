"""process/box.py: what a sandbox allows, and the one line a run says of it."""

from __future__ import annotations

from typing import get_args

from ralph.process.box import Profile, Sandbox
from tests.process.test_sandbox import ROOT, SCRATCH, box


def test_describe_says_whether_the_network_is_filtered() -> None:
    assert "network only to api.anthropic.com" in box("srt").describe()
    assert "network not filtered" in box("bwrap").describe()


def test_the_runs_private_folders_are_under_its_scratch_and_only_srt_filters() -> None:
    made = Sandbox("docker", "/usr/bin/docker", ROOT, SCRATCH)
    assert (made.tmp, made.settings) == (SCRATCH / "tmp", SCRATCH / "srt-settings.json")
    assert [p for p in get_args(Profile) if box(p).filters_network] == ["srt"]
