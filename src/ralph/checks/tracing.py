"""What the mutation check's runs executed of the changed files: its tracer (checks/linetrace.py)
placed in the room, and what it noted read back.

Only the check's first run (on the unmutated code) is traced: its lines choose the mutants.
The mutants and the control run (the unmutated code once more, at a place no run can foresee)
are not, so code that fails whenever it is not traced fails the control run and is refused.
What the tracer noted is the code's word (the code runs in the traced process): it can add
lines, which only adds mutants; to hide a line, code must tell that it is traced and take
another path there (a limit the docs state), or set a trace or profile function of its own,
which marks the trace `tampered`, no trace at all (every change is mutated).
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

FOLDER = ".ralph-trace-"  # + a token drawn for each check: a folder of its own in the room
MAX_NOTES = 8 << 20  # bytes of notes read from one process: more is no trace


@dataclass
class Seen:
    """What the tracer noted in one run."""

    started: bool = False  # a Python process of the run started the tracer
    tampered: bool = False  # the code set a trace or profile function of its own
    lines: dict[str, set[int]] = field(default_factory=dict)  # path -> the lines that ran
    executed: set[str] = field(default_factory=set)  # data files compiled as code
    strings: set[tuple[str, int]] = field(default_factory=set)  # (path, line) that ran a string
    archives: set[str] = field(default_factory=set)  # changed files code was imported from

    @property
    def usable(self) -> bool:
        return self.started and not self.tampered


class Tracing:
    """The tracer of one mutation check in its room."""

    def __init__(
        self, room: Path, code: list[str], data: list[str], other: tuple[str, ...] = ()
    ) -> None:
        self.folder = FOLDER + secrets.token_hex(4)
        self.room = room
        real = Path(os.path.realpath(room))
        files = {
            "code": {str(real / rel): rel for rel in code},
            "data": {str(real / rel): rel for rel in data},
            "other": {str(real / rel): rel for rel in other},
        }
        source = (Path(__file__).parent / "linetrace.py").read_bytes()
        self.files: dict[str, bytes | None] = {
            f"{self.folder}/sitecustomize.py": source,
            f"{self.folder}/files.json": json.dumps(files, sort_keys=True).encode(),
        }
        self.known = set(code) | set(data)
        self.code, self.other = set(code), set(other)

    def env(self, env: dict[str, str], room: Path) -> dict[str, str]:
        """`env` with the tracer first on PYTHONPATH (the project's own entries after it)."""
        rest = env.get("PYTHONPATH", "")
        first = str(room / self.folder)
        return {**env, "PYTHONPATH": first + (os.pathsep + rest if rest else "")}

    def read(self, room: Path) -> Seen:
        """What the processes of the run that just ended noted (before the room's next sync
        removes it)."""
        seen = Seen()
        folder = room / self.folder
        try:
            notes = [p for p in folder.iterdir() if p.name.startswith("lines-")]
        except OSError:
            return seen
        for path in notes:
            try:
                if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_NOTES:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for line in text.splitlines():
                self._note(seen, line.split("\t"))
        return seen

    def _note(self, seen: Seen, parts: list[str]) -> None:
        if parts == ["start"]:
            seen.started = True
        elif parts == ["tampered"]:
            seen.tampered = True
        elif len(parts) == 3 and parts[0] == "line" and parts[1] in self.known:
            if parts[2].isdigit():
                seen.lines.setdefault(parts[1], set()).add(int(parts[2]))
        elif len(parts) == 2 and parts[0] == "exec" and parts[1] in self.known:
            seen.executed.add(parts[1])
        elif len(parts) == 3 and parts[0] == "string" and parts[1] in self.code:
            if parts[2].isdigit():
                seen.strings.add((parts[1], int(parts[2])))
        elif len(parts) == 2 and parts[0] == "archive" and parts[1] in self.other:
            seen.archives.add(parts[1])
