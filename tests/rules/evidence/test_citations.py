"""rules/evidence/citations.py: a judge's evidence, as it must cite it (pure)."""

from __future__ import annotations

from ralph.rules.evidence.citations import parse_citations


def test_citation_lines_are_read() -> None:
    text = """\
Looked at the code.
EVIDENCE 1: src/app.py:2 "return a + b"
- EVIDENCE 2: `src/app.py:6` — "return f'hello {name}'"
EVIDENCE 3: $ pytest -q => "3 passed"
EVIDENCE 4: somewhere
VERIFIED
"""
    cited = parse_citations(text)
    assert [(c.criterion, c.path, c.line, c.command, c.quote) for c in cited] == [
        (1, "src/app.py", 2, None, "return a + b"),
        (2, "src/app.py", 6, None, "return f'hello {name}'"),
        (3, None, 0, "pytest -q", "3 passed"),
    ]
