"""rules/text/heldfiles.py: one line names the environment files held out of the checks, and
bytecode alone is no reason to say anything."""

from __future__ import annotations

from ralph.rules.text.heldfiles import SHOWN, held_line


def test_nothing_held_or_only_bytecode_says_nothing() -> None:
    assert held_line([]) == ""
    assert held_line([".venv/lib/x/__pycache__/a.cpython-312.pyc", ".venv/lib/b.pyc"]) == ""


def test_one_file_is_named_with_what_to_do() -> None:
    line = held_line([".venv/lib/site-packages/calc.py", ".venv/lib/c.pyc"])
    assert line.startswith("1 file of .venv changed while a ralph run was live")
    assert "(.venv/lib/site-packages/calc.py)" in line
    assert "c.pyc" not in line
    assert "make it again now that no run is live" in line


def test_files_are_counted_per_environment_and_the_first_few_named() -> None:
    held = [f".venv/f{n}.py" for n in range(SHOWN + 2)] + ["env/g.py"]
    line = held_line(held)
    assert line.startswith(f"{SHOWN + 2} files of .venv and 1 of env changed")
    assert ".venv/f0.py, .venv/f1.py, .venv/f2.py and 3 more" in line
    assert f".venv/f{SHOWN}.py" not in line
