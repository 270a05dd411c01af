"""What the mutation check may mutate: every change to code since the run began (the start copy
against the room), whichever spec's rotation or lane made it, cut down to the lines the tests
execute when the tracer saw them (checks/tracing.py).

The changed `.py` files are code. Every other changed text file is data until the tracer sees
Python compile it (`exec(open(...).read())`, `eval`, `runpy`, a loader for a file of another
name): then it is code too, mutated like a module when it parses as one, and a refusal when it
does not. Every run of the check places every changed file anew, with the tree's mode and
times, so the runs differ by the bytes of one mutant alone.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph.checks.tracing import Seen, Tracing
from ralph.errors import RalphError
from ralph.rules.evidence.mutantplan import changed_lines, mutable
from ralph.rules.evidence.mutants import Mutant
from ralph.rules.evidence.testfiles import is_test
from ralph.store.disk import reader
from ralph.store.rooms.room import never_in_room
from ralph.store.rooms.startcopy import changed_since_start

BOM = b"\xef\xbb\xbf"
MAX_DATA = 1 << 20  # a changed file larger than this is not read as code that may run
SHOWN = 3  # files named in a refusal or a warning
KEEP_IN_PY = "code kept outside .py files is not mutated: keep the code in .py files"


Targets = dict[str, tuple[str | None, str, set[int]]]


@dataclass(frozen=True)
class Text:
    old: str | None  # at the start, None when added since
    now: str
    raw: bytes  # the bytes now, as placed in every run


class Changes:
    """The files changed since the run began that the check places, traces and mutates."""

    def __init__(
        self, code: dict[str, Text], data: dict[str, Text], others: list[str], room: Path
    ) -> None:
        self.code, self.data, self.others = code, data, others
        binary = tuple(sorted(set(others) - data.keys()))
        self.tracing = Tracing(room, sorted(code), sorted(data), binary)
        self.placed: dict[str, bytes | None] = {p: t.raw for p, t in (code | data).items()}

    @classmethod
    def since(cls, start: Path, room: Path, tests: Sequence[str], spec: str) -> Changes:
        code: dict[str, Text] = {}
        data: dict[str, Text] = {}
        others: list[str] = []
        for rel in changed_since_start(start, room):
            if never_in_room(rel) or is_test(rel, tests) or rel == spec:
                continue
            raw = _bytes(room / rel)
            if raw is None:
                continue  # deleted, or a link: nothing of the tree's own runs there
            text = _decoded(raw)
            if text is not None and mutable(rel, tests, (spec,)):
                code[rel] = Text(_old(start / rel), text, raw)
            elif text is not None and len(raw) <= MAX_DATA:
                data[rel] = Text(_old(start / rel), text, raw)
                others.append(rel)
            else:
                others.append(rel)
        return cls(code, data, others, room)

    def mutated(self, mutant: Mutant) -> bytes:
        text = self.code.get(mutant.path) or self.data[mutant.path]
        bom = BOM if text.raw.startswith(BOM) else b""
        return bom + mutant.apply(text.now).encode()

    def targets(self, seen: Seen) -> Targets | str:
        """path -> (its text at the start, now, the lines to mutate); a refusal when a file
        that is not Python source runs as code that cannot be mutated."""
        hidden = unmutable(seen)
        if hidden is not None:
            return hidden
        out: dict[str, tuple[str | None, str, set[int]]] = {}
        for rel, text in self.code.items():
            lines = changed_lines(text.old, text.now)
            if seen.usable:
                lines &= seen.lines.get(rel, set())
            out[rel] = (text.old, text.now, lines)
        for rel in sorted(seen.executed if seen.usable else ()):
            text = self.data[rel]
            try:
                ast.parse(text.now)
            except (SyntaxError, ValueError):
                return (
                    f"{rel} is run as Python code (the tests compile its text), but it is "
                    f"not Python source ralph can mutate: {KEEP_IN_PY}"
                )
            lines = changed_lines(text.old, text.now)
            if rel in seen.lines:  # compiled under its own name: its lines were traced
                lines &= seen.lines[rel]
            out[rel] = (text.old, text.now, lines)
        return {rel: t for rel, t in out.items() if t[2]}

    def warnings(self, seen: Seen) -> tuple[str, ...]:
        notes: list[str] = []
        if not seen.usable:
            why = (
                "the code set a tracer of its own"
                if seen.tampered
                else "no Python process started it"
            )
            notes.append(
                f"which lines the tests run was not seen ({why}): every change is "
                "mutated, and files that are not Python source are not"
            )
        plain = [p for p in self.others if p not in (seen.executed if seen.usable else ())]
        if not seen.usable and plain:
            notes.append(f"not mutated (not Python source): {_names(plain)}")
        return tuple(notes)


def unmutable(seen: Seen) -> str | None:
    """The refusal when the tests ran code no mutant can reach: kept in a string a changed
    file runs (`exec`, `eval`, `compile`), or imported from a changed archive. A mutant of
    the string only breaks it (an import that fails), so the score would be no evidence."""
    if not seen.usable:
        return None
    if seen.strings:
        rel, line = min(seen.strings)
        more = f" (and {len(seen.strings) - 1} more)" if len(seen.strings) > 1 else ""
        return (
            f"{rel}:{line} runs code kept in a string (exec, eval or compile){more}: ralph "
            f"cannot mutate it, so no score would show the tests check it; {KEEP_IN_PY}"
        )
    if seen.archives:
        return (
            f"the tests run code from inside {_names(sorted(seen.archives))} (an archive): "
            f"ralph cannot mutate it; {KEEP_IN_PY}"
        )
    return None


def no_code(others: Sequence[str]) -> str:
    """The refusal when no code changed since the run began."""
    seen = f" (changed: {_names(others)})" if others else ""
    return f"no mutant: no Python code changed since the run began{seen}; {KEEP_IN_PY}"


def none_chosen(changes: Changes, targets: Mapping[str, object], seen: Seen) -> str:
    """The refusal when no mutant could be made of what changed."""
    if not targets and not changes.code:
        return no_code(changes.others)
    if not targets and seen.usable:
        return (
            "no mutant: the tests execute none of the Python code changed since the run began "
            f"(changed: {_names(sorted(changes.code))}); test the change with the check's command"
        )
    names = _names(sorted(targets or changes.code))
    return (
        f"no mutant: the code changed since the run began ({names}) has nothing to mutate "
        "(no comparison, arithmetic, constant, condition or return)"
    )


def _names(paths: Sequence[str]) -> str:
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return ", ".join(paths[:SHOWN]) + more


def _bytes(path: Path) -> bytes | None:
    try:  # the one reader: a link, a pipe or a device is no code of the tree's own
        return reader.read_bytes(path, limit=reader.TEXT_LIMIT, root=path.parent)
    except (OSError, RalphError):
        return None


def _decoded(raw: bytes) -> str | None:
    # utf-8-sig: Python ignores a byte order mark, its parser does not (the mutant keeps it)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _old(path: Path) -> str | None:
    raw = _bytes(path)
    return _decoded(raw) if raw is not None else None
