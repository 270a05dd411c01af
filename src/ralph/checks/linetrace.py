"""Which changed lines the tests execute: a tracer the mutation check places in its room.

This file is not imported by ralph. The mutation check copies its source into its room as
`sitecustomize.py` in a folder of its own, put first on `PYTHONPATH`, for its first run (the
unmutated code): every Python process of that run starts it. It traces only the frames of the
files named in `files.json` beside it (a code object every line of which was seen is traced no
more), and notes in that folder, line by line as they first run (a process killed or left by
`os._exit` loses nothing it noted):
- `line <path> <n>`: a line of a changed file ran;
- `exec <path>`: a changed file that is not Python source was compiled as code (`exec`,
  `eval`, `compile`, `runpy`, an importlib loader): its code runs, though no `.py` holds it;
- `string <path> <n>`: line n of a changed file ran code it keeps in a string (`exec`, `eval`
  of a string or of what `compile` made of one): code no `.py` file holds, which no mutant
  reaches;
- `archive <path>`: code ran from inside a changed file that is neither (a zip archive on
  `sys.path`: zipimport);
- `tampered`: the code under test set a trace or profile function of its own.
The project's own `sitecustomize` (if any) is loaded after it. It must run on every Python
ralph supports as a project's interpreter: plain code, standard library only.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    Tracer = Callable[[FrameType, str, Any], Any]

MAX_COMPARED = 1 << 20  # a compiled source longer than this is no data file's
SHORTEST = 16  # characters of a data file a compiled source must hold, unless it is all of it
HERE = Path(__file__).resolve().parent


def _install() -> None:
    files = json.loads((HERE / "files.json").read_text(encoding="utf-8"))
    code = dict(files["code"])  # absolute path -> the root-relative path reported
    data = dict(files["data"])  # the same, for changed files that are not Python source
    other = dict(files.get("other", {}))  # the same, for changed files that are not text
    texts: dict[str, str] = {}
    for full, rel in data.items():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            texts[rel] = Path(full).read_text(encoding="utf-8")
    out = str(HERE / f"lines-{os.getpid()}-{os.urandom(4).hex()}")
    noted: set[str] = set()

    def note(line: str) -> None:
        if line in noted:
            return
        noted.add(line)
        try:  # opened each time: a descriptor closed under it loses nothing later
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError:
            return
        try:
            os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)

    known: dict[str, str | None] = {}  # co_filename -> its reported path, or None
    left: dict[Any, set[int]] = {}  # a traced code object -> its lines not seen yet
    done: set[Any] = set()  # code objects every line of which was seen: traced no more

    def which(name: str) -> str | None:
        full = os.path.realpath(name)
        known[name] = found = code.get(full) or data.get(full)
        return found

    def local(frame: FrameType, event: str, arg: Any) -> Tracer:
        if event == "line":
            lines = left[frame.f_code]
            if frame.f_lineno in lines:
                lines.discard(frame.f_lineno)
                note(f"line\t{known[frame.f_code.co_filename]}\t{frame.f_lineno}")
                if not lines:
                    done.add(frame.f_code)
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        # called for every call of every function: as little as it can be
        what = frame.f_code
        if what in done:
            return None
        if what not in left:
            name = what.co_filename
            if (known[name] if name in known else which(name)) is None:
                done.add(what)
                return None
            left[what] = _lines(what)
        return local

    installing = [True]
    compiled = [False]  # the last compile was a data file's text: its exec is noted already

    def executed(what: Any) -> None:
        if compiled[0]:
            compiled[0] = False
            return
        name = getattr(what, "co_filename", "")
        full = os.path.realpath(name) if isinstance(name, str) else ""
        for path, rel in other.items():
            if full.startswith(path + os.sep):
                note("archive\t" + rel)
                return
        if full in data:
            return
        try:
            caller = sys._getframe(2)  # exec or eval was called there (1: this hook)
        except ValueError:  # the interpreter itself runs the main script: no caller
            return
        rel = code.get(os.path.realpath(caller.f_code.co_filename))
        if rel is not None:
            note(f"string\t{rel}\t{caller.f_lineno}")

    def audit(event: str, args: Any) -> None:
        if event in ("sys.settrace", "sys.setprofile") and not installing[0]:
            caller = sys._getframe(1).f_code.co_filename
            if not (event == "sys.settrace" and caller == threading.__file__):
                note("tampered")
        elif event == "exec" and args:
            with contextlib.suppress(Exception):  # an audit hook that raises breaks the run
                executed(args[0])
        elif event == "compile" and len(args) >= 2:
            compiled[0] = False
            source, name = args[0], args[1]
            rel = data.get(os.path.realpath(name)) if isinstance(name, str) else None
            if rel is not None:
                note("exec\t" + rel)
                compiled[0] = True
                return
            if isinstance(source, bytes):
                source = source.decode("utf-8", "replace")
            body = source.strip() if isinstance(source, str) else ""
            if not body or len(body) > MAX_COMPARED:
                return
            for rel, text in texts.items():
                whole = text.strip()
                if body in whole and len(body) >= min(SHORTEST, len(whole)):
                    note("exec\t" + rel)
                    compiled[0] = True

    note("start")
    sys.addaudithook(audit)
    threading.settrace(calls)
    sys.settrace(calls)
    installing[0] = False


def _lines(what: Any) -> set[int]:
    """The lines a code object's line events can name."""
    if hasattr(what, "co_lines"):  # 3.10 and later
        return {line for _, _, line in what.co_lines() if line is not None}
    import dis

    return {line for _, line in dis.findlinestarts(what)}


def _next_sitecustomize() -> None:
    """The project's or the environment's own `sitecustomize`, which this one hid."""
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    me = sys.modules.pop("sitecustomize")
    with contextlib.suppress(ImportError):
        importlib.import_module("sitecustomize")  # the next one on the path
    sys.modules.setdefault("sitecustomize", me)  # the import that ran this one wants it back


if __name__ == "sitecustomize":
    with contextlib.suppress(Exception):  # no tracer is no filter: every change is mutated
        _install()
    _next_sitecustomize()
