"""checks/mutantsource.py: what the mutation check may mutate, of what changed since the run
began: Python code, and data the tracer saw compiled as code."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.mutantsource import KEEP_IN_PY, Changes, no_code, none_chosen
from ralph.checks.tracing import Seen
from ralph.rules.evidence.testfiles import DEFAULT_GLOBS

OLD = "def add(a, b):\n    return a + b\n"
NEW = "def add(a, b):\n    if a < 0:\n        return 0\n    return a + b\n"


def changes(tmp_path: Path, start: dict[str, str], now: dict[str, str]) -> Changes:
    for folder, files in (("start", start), ("room", now)):
        for rel, text in files.items():
            path = tmp_path / folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    (tmp_path / "start").mkdir(exist_ok=True)
    room = tmp_path / "room"
    return Changes.since(tmp_path / "start", room, DEFAULT_GLOBS, "a.spec.md")


def test_changed_code_is_code_and_tests_specs_and_text_are_not(tmp_path: Path) -> None:
    found = changes(
        tmp_path,
        {"calc.py": OLD, "tests/test_calc.py": "x = 1\n"},
        {
            "calc.py": NEW,
            "tests/test_calc.py": "x = 2\n",
            "a.spec.md": "# a\n",
            "rules.txt": "a < 0\n",
        },
    )
    assert list(found.code) == ["calc.py"] and found.code["calc.py"].old == OLD
    assert list(found.data) == ["rules.txt"] and found.others == ["rules.txt"]
    assert set(found.placed) == {"calc.py", "rules.txt"}


def test_only_the_changed_lines_the_tests_ran_are_targets(tmp_path: Path) -> None:
    found = changes(tmp_path, {"calc.py": OLD}, {"calc.py": NEW})
    assert found.targets(Seen()) == {"calc.py": (OLD, NEW, {2, 3})}  # no trace: every change
    ran = Seen(started=True, lines={"calc.py": {1, 2, 4}})
    assert found.targets(ran) == {"calc.py": (OLD, NEW, {2})}
    unrun = Seen(started=True, lines={})
    assert found.targets(unrun) == {}
    assert "the tests execute none of the Python code changed" in none_chosen(found, {}, unrun)


def test_data_compiled_as_code_is_mutated_when_it_parses_and_refused_when_not(
    tmp_path: Path,
) -> None:
    found = changes(tmp_path, {}, {"logic.txt": "LIMIT = 3\n", "notes.txt": "not python at all\n"})
    assert found.code == {}
    ran = Seen(started=True, executed={"logic.txt"})
    targets = found.targets(ran)
    assert isinstance(targets, dict) and set(targets) == {"logic.txt"}
    refused = found.targets(Seen(started=True, executed={"notes.txt"}))
    assert isinstance(refused, str) and refused.startswith("notes.txt is run as Python code")


def test_code_run_from_a_string_or_an_archive_is_refused_by_name(tmp_path: Path) -> None:
    """Wrong code in a string exec'd at import: its only mutant is the string, which breaks
    the import. The tests ran code no mutant reaches: a refusal naming where, never a score."""
    found = changes(tmp_path, {}, {"calc.py": NEW})
    ran = Seen(started=True, lines={"calc.py": {2}}, strings={("calc.py", 2), ("calc.py", 4)})
    refused = found.targets(ran)
    assert isinstance(refused, str)
    assert refused.startswith("calc.py:2 runs code kept in a string (exec, eval or compile)")
    assert "(and 1 more)" in refused
    zipped = found.targets(Seen(started=True, archives={"lib.zip"}))
    assert isinstance(zipped, str) and "from inside lib.zip (an archive)" in zipped
    honest = found.targets(Seen(started=True, lines={"calc.py": {2}}))
    assert honest == {"calc.py": (None, NEW, {2})}  # the control: plain code is mutated


def test_an_untraced_run_is_warned_about(tmp_path: Path) -> None:
    found = changes(tmp_path, {}, {"calc.py": NEW, "notes.txt": "words\n"})
    warned = found.warnings(Seen(started=True, tampered=True))
    assert "the code set a tracer of its own" in warned[0]
    assert warned[1] == "not mutated (not Python source): notes.txt"
    assert found.warnings(Seen(started=True)) == ()


def test_no_code_names_what_changed() -> None:
    assert no_code([]) == f"no mutant: no Python code changed since the run began; {KEEP_IN_PY}"
    many = no_code(["a.txt", "b.txt", "c.txt", "d.txt"])
    assert "(changed: a.txt, b.txt, c.txt and 1 more)" in many
