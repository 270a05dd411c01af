"""ui/notify.py: `--notify`."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_desktop_notification_shows_the_agents_words_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """notify-send reads its body as markup and a reason may quote the agent: a link or an
    image there is shown as text, and an escape sequence is dropped."""
    from ralph.ui.notify import notifier_command

    fake = tmp_path / "notify-send"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    argv = notifier_command(
        "ralph stopped (exit 5)", 'asked: <a href="http://x">ok</a> & \x1b]52;c;eA==\x07'
    )
    assert argv is not None
    assert argv[-1] == 'asked: &lt;a href="http://x"&gt;ok&lt;/a&gt; &amp; '  # no OSC 52 at all
