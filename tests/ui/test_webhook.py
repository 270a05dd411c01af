"""ui/webhook.py: the webhook a run notifies (`notify: {webhook: URL}`)."""

from __future__ import annotations

import pytest

from ralph.ui.webhook import person_payload, run_end_payload, slack_text


@pytest.mark.parametrize(
    "said",
    ["<!channel> now", "see <http://evil.example|your bank>", "a & b < c > d", "<!here|x>"],
)
def test_slack_control_characters_are_escaped(said: str) -> None:
    text = slack_text(said)
    assert "<" not in text and ">" not in text
    assert "&" not in text.replace("&amp;", "").replace("&lt;", "").replace("&gt;", "")
    for payload in (
        run_end_payload("p", 5, said, []),
        person_payload("question", "p", said, said),
    ):
        assert "<" not in payload["text"] and ">" not in payload["text"]


def test_slack_text_is_one_bounded_line() -> None:
    text = slack_text("a\nb\x1b]52;c;ZXZpbA==\x07" + "x" * 10_000)
    assert "\n" not in text and "\x1b" not in text and len(text) <= 2000
