"""rules/agents/cmdline.py: splitting a command line into argv the way the platform's users write
one."""

from __future__ import annotations

import pytest

from ralph.rules.agents.cmdline import split_command


def test_windows_command_lines_keep_their_backslashes() -> None:
    line = r'C:\Python\python.exe C:\agents\fake.py "C:\Program Files\x" --tag a#b'
    assert split_command(line, windows=True) == [
        r"C:\Python\python.exe",
        r"C:\agents\fake.py",
        r"C:\Program Files\x",
        "--tag",
        "a#b",
    ]
    assert split_command("agent 'two words' \"and more\"", windows=True) == [
        "agent",
        "two words",
        "and more",
    ]
    # A POSIX shell's rules elsewhere: a backslash escapes.
    assert split_command(r"agent a\ b 'c d'", windows=False) == ["agent", "a b", "c d"]
    for windows in (True, False):
        with pytest.raises(ValueError, match="closing quotation"):
            split_command('agent "unclosed', windows=windows)
