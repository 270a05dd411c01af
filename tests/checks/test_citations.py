"""checks/citations.py: judges cite evidence."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.citations import check_citations


def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef greet(name):\n    return f'hello {name}'\n"
    )
    return tmp_path


def test_valid_evidence_for_every_criterion(tmp_path: Path) -> None:
    root = project(tmp_path)
    answer = 'EVIDENCE 1: src/app.py:2 "return a +  b"\nEVIDENCE 2: $ make test => "ok"\n'
    assert check_citations(root, answer, 2) is None


def test_invalid_or_missing_evidence_is_named(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert check_citations(root, "VERIFIED", 1) == "no evidence cited"
    wrong_text = 'EVIDENCE 1: src/app.py:2 "return a - b"'
    assert check_citations(root, wrong_text, 1) == (
        "no valid evidence for criterion 1 (EVIDENCE 1: src/app.py:2: the quoted text is not there)"
    )
    past_end = 'EVIDENCE 1: src/app.py:60 "return a + b"'
    assert "it has 6 lines" in (check_citations(root, past_end, 1) or "")
    missing = 'EVIDENCE 1: src/nope.py:1 "x"'
    assert "no such file" in (check_citations(root, missing, 1) or "")
    outside = 'EVIDENCE 1: ../../etc/passwd:1 "root"'
    assert "not a file of the project" in (check_citations(root, outside, 1) or "")
    one_of_two = 'EVIDENCE 1: src/app.py:2 "return a + b"'
    assert check_citations(root, one_of_two, 2) == "no valid evidence for criterion 2"
