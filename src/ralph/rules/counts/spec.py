"""A spec as a value: its path, text and hash, the order specs run in, its per-spec file names."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import PurePosixPath

ROOT_PROMPTS = ("PROMPT.md", "RALPH_TASK.md")  # both are specs when both exist, PROMPT.md first

# What `ralph init` writes to PROMPT.md. A spec still identical to it says nothing to build:
# it is not run (an agent would implement "Describe what you want built").
PROMPT_TEMPLATE = """\
# Project goal

Describe what you want built, in a few sentences.

## Acceptance criteria

- [ ] The first thing that must be true when this is done
- [ ] The second thing

## Notes

Constraints, links. Add more specs as `specs/<name>.spec.md`. To count a DONE only when this
spec's own tests pass, open the file with a front matter naming them, for example
`---` / `test_command: pytest -q tests/test_goal.py` / `---`; the whole suite goes in
ralph.yaml's `test_command`, which the final verification runs. One command for every spec
would make each spec wait for the others' tests.
"""


@dataclass(frozen=True)
class Spec:
    path: str  # relative to the project root, forward slashes on every platform
    text: str
    content_hash: str  # sha256 of the bytes on disk


def spec_slug(path: str) -> str:
    """`{name}-{hash6}`: the file name is not unique across folders, the path is."""
    name = PurePosixPath(path).name
    if name in ROOT_PROMPTS:
        name = "000-" + name.split(".")[0].lower().replace("_", "-")
    elif name.endswith(".md"):
        name = name[: -len(".md")]
    return f"{name}-{hashlib.sha256(path.encode()).hexdigest()[:6]}"


def sort_key(path: str) -> tuple[int, str]:
    """PROMPT.md sorts as `000-prompt.spec.md`, always first (even before `.ralph/specs/`, whose
    dot would sort before a digit), RALPH_TASK.md right after it, then by full relative path."""
    if path == "PROMPT.md":
        return (0, "000-prompt.spec.md")
    if path == "RALPH_TASK.md":
        return (1, "000-ralph-task.spec.md")
    return (2, path)


def is_untouched_template(text: str) -> bool:
    """The spec's text is still `ralph init`'s template (line endings and edges aside)."""
    return text.replace("\r\n", "\n").strip() == PROMPT_TEMPLATE.strip()
