"""ui/statustable.py: `ralph status`."""

from __future__ import annotations

import io
import re

from rich.console import Console, RenderableType

from ralph.run.events import (
    SpecRow,
)
from ralph.ui.statustable import render_status_plain, render_status_table

PROMPT = (SpecRow("PROMPT.md", 0, None, False),)


THREE = (
    SpecRow("PROMPT.md", 3, "DONE", True),
    SpecRow("specs/a.spec.md", 2, "CONTINUE", True),
    SpecRow("specs/b.spec.md", 0, None, False),
)


def text_of(renderable: RenderableType) -> str:
    console = Console(record=True, width=80, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_status_table_cells() -> None:
    text = text_of(
        render_status_table(THREE, iteration=7, max_iteration=20, running=True, complete=False)
    )
    lines = text.splitlines()
    assert re.search(r"Spec\s+Counter\s+Last status\s+Modified\s+Needs work", text)
    assert any(re.search(r"PROMPT\.md\s+3/3\s+DONE\s+yes\s+no", line) for line in lines)
    assert any(re.search(r"specs/a\.spec\.md\s+2/3\s+CONTINUE\s+yes\s+yes", line) for line in lines)
    assert any(re.search(r"specs/b\.spec\.md\s+0/3\s+—\s+no\s+yes", line) for line in lines)
    assert "iteration 7 (last run's budget 20) · run live · not complete" in text


def test_status_table_caption_without_run() -> None:
    text = text_of(
        render_status_table(THREE, iteration=3, max_iteration=None, running=False, complete=True)
    )
    assert "iteration 3 · no run · complete" in text


def test_status_plain() -> None:
    text = render_status_plain(THREE, iteration=7, max_iteration=20, running=False, complete=False)
    assert text == (
        "spec             counter  last status  modified files  needs work\n"
        "PROMPT.md        3/3      DONE         yes             no\n"
        "specs/a.spec.md  2/3      CONTINUE     yes             yes\n"
        "specs/b.spec.md  0/3      —            no              yes\n"
        "iteration 7 (last run's budget 20) · no run · not complete\n"
    )


def test_status_plain_without_specs() -> None:
    text = render_status_plain((), iteration=0, max_iteration=20, running=False, complete=False)
    assert "(no specs)" in text.splitlines()
