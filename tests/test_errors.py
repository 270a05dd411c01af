"""What an overnight run meets: specs made unreadable, lost snapshots, resets, hang-ups."""

from __future__ import annotations

import pytest

from ralph.errors import report
from ralph.rules.text.printable import printable


def test_os_errors_are_one_line_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code = report(OSError(28, "No space left on device", ".ralph/state.json"), printable)
    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err == [
        "error: .ralph/state.json: No space left on device",
        "hint: free some disk space, then run again",
    ]


def test_an_os_error_of_a_rename_names_the_target_not_the_temporary_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    exc = OSError(
        21, "Is a directory", ".ralph/.state.json.0123456789ab.tmp", None, ".ralph/state.json"
    )
    assert report(exc, printable) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: .ralph/state.json: Is a directory\n")
    assert ".tmp" not in err and "disk space" not in err
