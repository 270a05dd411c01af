"""The mutation check's tracer (checks/linetrace.py via checks/tracing.py) in a real Python
process: the changed lines that ran, a data file compiled as code, a tracer set by the code
under test (no trace then), and the project's own sitecustomize still loaded after it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.checks.tracing import Tracing

CALC = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef unused():\n    return 1\n"


def traced(
    root: Path,
    main: str,
    data: tuple[str, ...] = (),
    *,
    extra: str = "",
    other: tuple[str, ...] = (),
) -> Tracing:
    (root / "calc.py").write_text(CALC)
    (root / "main.py").write_text(main)
    code = ["calc.py"]
    if extra:
        (root / "hidden.py").write_text(extra)
        code.append("hidden.py")
    for rel in data:
        if not (root / rel).exists():
            (root / rel).write_text("sum(xs) / len(xs)\n")
    tracing = Tracing(root, code, list(data), other)
    for rel, body in tracing.files.items():
        assert body is not None
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_bytes(body)
    env = tracing.env({k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, root)
    res = subprocess.run(
        [sys.executable, "main.py"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert "Error in sitecustomize" not in res.stderr
    return tracing


@pytest.mark.slow  # real test runs
def test_the_lines_that_ran_in_every_thread_are_noted(tmp_path: Path) -> None:
    main = (
        "import threading\n\nimport calc\n\nt = threading.Thread(target=calc.mean, args=([1],))\n"
    )
    main += "t.start()\nt.join()\n"
    seen = traced(tmp_path, main).read(tmp_path)
    assert seen.usable
    assert seen.lines == {"calc.py": {1, 2, 5}}  # the defs ran, and mean's body in a thread


@pytest.mark.slow  # real test runs
def test_a_data_file_compiled_as_code_is_noted(tmp_path: Path) -> None:
    (tmp_path / "formula.txt").write_text("sum(xs) * len(xs)\n")
    (tmp_path / "notes.txt").write_text("only read\n")
    main = "xs = [1]\nprint(eval(open('formula.txt').read()))\nopen('notes.txt').read()\n"
    seen = traced(tmp_path, main, ("formula.txt", "notes.txt")).read(tmp_path)
    assert seen.executed == {"formula.txt"}


@pytest.mark.slow  # real test runs
def test_code_a_changed_file_keeps_in_a_string_is_noted_where_it_runs(tmp_path: Path) -> None:
    """exec or eval of a string in a changed file: code no `.py` holds. The control: what
    the interpreter itself executes for it (its import, a dataclass's generated methods, a
    data file's text) is not."""
    seen = traced(tmp_path, "import calc, hidden\n", ("formula.txt",), extra=HIDDEN).read(tmp_path)
    assert seen.strings == {("hidden.py", 5), ("hidden.py", 6)}
    assert seen.executed == {"formula.txt"}


HIDDEN = (
    "import dataclasses\n\nSOURCE = 'def mean(xs):\\n    return 2\\n'\n\n"
    "exec(SOURCE)\nN = eval('1 + 1')\nF = eval(open('formula.txt').read(), {'xs': [2]})\n\n"
    "@dataclasses.dataclass\nclass P:\n    x: int = 0\n"
)


@pytest.mark.slow  # real test runs
def test_code_imported_from_a_changed_archive_is_noted(tmp_path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as z:
        z.writestr("zipped.py", "def mean(xs):\n    return 2\n")
    main = "import sys\nsys.path.insert(0, 'lib.zip')\nimport calc, zipped\n"
    seen = traced(tmp_path, main, other=("lib.zip",)).read(tmp_path)
    assert seen.archives == {"lib.zip"} and not seen.strings


@pytest.mark.slow  # real test runs
def test_code_that_sets_its_own_tracer_leaves_no_trace(tmp_path: Path) -> None:
    seen = traced(tmp_path, "import sys\n\nsys.settrace(None)\nimport calc\n").read(tmp_path)
    assert seen.started and seen.tampered and not seen.usable


@pytest.mark.slow  # real test runs
def test_the_projects_own_sitecustomize_still_runs(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import builtins\nbuiltins.OWN = 1\n")
    main = f"import sys\nsys.path.insert(0, {str(own)!r})\n"  # too late for site: see below
    tracing = traced(tmp_path, main)
    env = tracing.env({**os.environ, "PYTHONPATH": str(own)}, tmp_path)
    res = subprocess.run(
        [sys.executable, "-c", "import builtins, calc; print(builtins.OWN)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert res.stdout.strip() == "1", res.stderr
    assert tracing.read(tmp_path).lines == {"calc.py": {1, 5}}
