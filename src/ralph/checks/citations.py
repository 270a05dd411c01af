"""Judges cite evidence: a VERIFIED counts only when every acceptance criterion has a valid
citation. ralph checks each cited file and line exists (inside the project) and holds the
quoted text; a command citation must name the command and what it printed.
"""

from __future__ import annotations

from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.evidence.citations import Citation, normalize, parse_citations, uncovered
from ralph.store.disk import reader

WINDOW = 3  # a quote may run over onto the next lines (a wrapped statement)
SHOWN = 3


def check_citations(root: Path, answer: str, criteria: int) -> str | None:
    """Why the judge's answer lacks valid evidence, or None when every criterion has some."""
    cited = parse_citations(answer)
    problems: list[str] = []
    valid: list[Citation] = []
    for citation in cited:
        why = _invalid(root, citation)
        if why is None:
            valid.append(citation)
        else:
            problems.append(f"{citation}: {why}")
    missing = uncovered(max(criteria, 1), valid)
    if not missing:
        return None
    which = ", ".join(str(n) for n in missing)
    head = f"no valid evidence for criterion {which}" if cited else "no evidence cited"
    if problems:
        head += " (" + "; ".join(problems[:SHOWN]) + ")"
    return head


def _invalid(root: Path, c: Citation) -> str | None:
    if c.path is None:
        return None  # a command and its output: named, and the run's own checks test it
    try:
        base = root.resolve()
        path = (base / c.path).resolve()
        path.relative_to(base)
    except (OSError, ValueError):
        return "not a file of the project"
    try:
        text = reader.read_text(path, limit=reader.TEXT_LIMIT, root=base, missing=None)
        lines = text.splitlines()
    except (OSError, RalphError):
        return "no such file"
    if not 1 <= c.line <= len(lines):
        return f"it has {len(lines)} lines"
    window = normalize(" ".join(lines[c.line - 1 : c.line - 1 + WINDOW]))
    if normalize(c.quote) not in window:
        return "the quoted text is not there"
    return None
