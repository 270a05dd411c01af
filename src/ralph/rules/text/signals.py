"""Pure signal parsing: which `<ralph>X</ralph>` tag the agent really ended with."""

from __future__ import annotations

import re
from typing import Final

# Every tag ralph understands, with the aliases, mapped to the status it records.
SIGNALS: Final = {
    "DONE": "DONE",
    "COMPLETE": "DONE",
    "CONTINUE": "CONTINUE",
    "ROTATE": "ROTATE",
    "STUCK": "STUCK",
    "GUTTER": "STUCK",
    "QUESTION": "QUESTION",
    "VERIFY_PASS": "VERIFY_PASS",
    "VERIFY_FAIL": "VERIFY_FAIL",
}
# The verdicts of a final verification rotation; in any other rotation they mean nothing.
VERDICTS: Final = frozenset({"VERIFY_PASS", "VERIFY_FAIL"})
TAG: Final = re.compile(r"<ralph>\s*([A-Za-z_]+)\s*</ralph>")

# The protocol as the prompt states it. These lines carry tags as *instructions*; an agent that
# quotes them has not signalled anything, so lines equal to one of them never count. None of
# them is a bare tag, so an agent's real final tag line can never be mistaken for one.
PROTOCOL: Final = """\
## How to end this rotation
End your reply with exactly one signal tag on its own line; ralph reads the last one:
- `<ralph>DONE</ralph>` when everything this spec asks for is implemented and verified.
- `<ralph>CONTINUE</ralph>` when you made progress and more work remains.
- `<ralph>ROTATE</ralph>` when your context is getting full and a fresh rotation should go on.
- `<ralph>STUCK</ralph>` when you cannot make progress without a human (explain why first).
- `<ralph>QUESTION</ralph>` when you need an answer from a human (write it to .ralph/question.md).
Aliases: `<ralph>COMPLETE</ralph>` means DONE and `<ralph>GUTTER</ralph>` means STUCK.
"""
VERIFY_PROTOCOL: Final = """\
## How to end this verification
End your reply with exactly one verdict tag on its own line; ralph reads the last one:
- `<ralph>VERIFY_PASS</ralph>` when the tests pass and every spec is really met.
- `<ralph>VERIFY_FAIL</ralph>` when anything is missing or wrong (explain what first).
"""
_PROTOCOL_LINES: Final = frozenset(
    line.strip()
    for text in (PROTOCOL, VERIFY_PROTOCOL)
    for line in text.splitlines()
    if TAG.search(line)
)


def parse_signal(output: str, prompt: str = "", final_text: str | None = None) -> str | None:
    """The status of the last signal the agent produced, or None when it gave none.

    With `final_text` (the agent's final message, where its CLI reports one) only that text
    counts. Otherwise the output counts after removing verbatim copies of the prompt and quoted
    protocol lines, so an agent that echoes its prompt has not signalled anything.
    """
    if final_text is not None:
        return _last_signal(final_text)
    text = agent_words(output, prompt, None)
    kept = (line for line in text.split("\n") if line.strip() not in _PROTOCOL_LINES)
    return _last_signal("\n".join(kept))


def agent_words(output: str, prompt: str, final_text: str | None) -> str:
    """What the agent itself said: its final message where its CLI reports one, otherwise its
    output without verbatim copies of the prompt (an echo is not the agent's word)."""
    if final_text is not None:
        return final_text
    text = output.replace("\r\n", "\n")
    if prompt:
        text = text.replace(prompt.replace("\r\n", "\n"), "\n")
    return text


def _last_signal(text: str) -> str | None:
    found: str | None = None
    for match in TAG.finditer(text):
        status = SIGNALS.get(match.group(1).upper())
        if status is not None:
            found = status
    return found
