"""rules/environment/roompin.py: what keeps a test runner's configuration search inside the room it
runs in
(pure)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ralph.rules.environment.roompin import pin_pytest, room_config

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ({"pytest.ini": ""}, "pytest.ini"),
        ({"tox.ini": "[tox]\n", "setup.cfg": "[tool:pytest]\n"}, "setup.cfg"),
        ({"pyproject.toml": "[project]\nname='x'\n", "tox.ini": "[pytest]\n"}, "tox.ini"),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\n", "tox.ini": "[pytest]\n"},
            "pyproject.toml",
        ),
        ({"pyproject.toml": "[project]\nname='x'\n"}, "pyproject.toml"),
        ({"tox.ini": "[tox]\n"}, None),
        ({}, None),
    ],
)
def test_which_configuration_a_room_holds(names: dict[str, str], expected: str | None) -> None:
    assert room_config(names) == expected


def test_pytest_is_pinned_to_the_room(tmp_path: Path) -> None:
    opts = pin_pytest(tmp_path, {}, "-x", empty=os.devnull)
    assert opts.startswith(f"-c {os.devnull} --rootdir={tmp_path} --confcutdir={tmp_path}")
    assert opts.endswith(" -x")  # the person's options after: theirs win
    assert f"-c {tmp_path / 'pytest.ini'}" in pin_pytest(
        tmp_path, {"pytest.ini": ""}, empty=os.devnull
    )
