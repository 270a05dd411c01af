"""rules/counts/convergence.py: the convergence watch, pure."""

from __future__ import annotations

from ralph.rules.counts.convergence import looks_like_notes, reasons, repeating, stuck, watch


def test_review_rotations_that_change_files_build_a_streak_and_no_change_ends_it() -> None:
    s = watch({}, "a.md", "IMPLEMENT", ["src/x.py", "notes.md"])
    assert s == {}  # an IMPLEMENT rotation is how the counter climbs back: not counted
    s = watch(s, "a.md", "REVIEW", ["notes.md", "src/x.py"])
    s = watch(s, "a.md", "IMPLEMENT", ["notes.md"])  # neither adds nor breaks
    s = watch(s, "a.md", "REVIEW", ["notes.md"])
    s = watch(s, "b.md", "REVIEW", ["other.py"])  # another spec has its own streak
    assert s["a.md"] == (("notes.md", "src/x.py"), ("notes.md",))
    assert stuck(s["a.md"], 2) and not stuck(s["a.md"], 3)
    s = watch(s, "a.md", "REVIEW", [])  # a REVIEW that changed nothing: converged
    assert "a.md" not in s and "b.md" in s


def test_the_files_that_keep_changing_are_those_of_every_review_else_the_most_frequent() -> None:
    assert repeating((("a", "notes.md"), ("notes.md", "b"), ("notes.md",))) == ["notes.md"]
    assert repeating((("a", "b"), ("b", "c"), ("a", "d"))) == ["a", "b"]
    assert repeating((("a",), ("b",))) == []


def test_notes_and_logs_are_told_apart_from_the_work() -> None:
    notes = [
        "progress.md",
        "NOTES.txt",
        "docs/notes.md",
        "todo.md",
        "agent.log",
        "scratch/plan.md",
        ".claude/settings.local.json",
        "logs/run1.txt",
    ]
    work = ["src/notes_parser.py", "README.md", "tests/test_status.py", "catalog.py"]
    assert [p for p in notes if not looks_like_notes(p)] == []
    assert [p for p in work if looks_like_notes(p)] == []


def test_the_message_names_the_files_and_hints_at_ralphignore_for_notes() -> None:
    said = reasons((("progress.md", "src/a.py"), ("progress.md",), ("progress.md",)))
    assert said[0] == (
        "3 REVIEW rotations in a row changed files; changed every time or most often: progress.md"
    )
    assert "progress.md look like the agent's notes or logs" in said[1]
    assert ".ralphignore" in said[1]
    assert len(reasons((("src/a.py",), ("src/a.py",)))) == 1  # no hint for real work
