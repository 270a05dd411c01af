"""Reading and writing ralph's own files: atomic writes, JSON that may be missing, memory files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ralph.errors import StateError

RESET_HINT = (
    "ralph kept the file as it is; fix it by hand, or move it away to start over "
    "(every counter then starts again at 0/3)"
)


def load_json(path: Path, label: str) -> Any | None:
    """Parsed JSON of `path`, None when it does not exist; StateError when unreadable."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"{label}: cannot read ({exc.strerror or exc})", RESET_HINT) from exc
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StateError(f"{label}: not valid JSON ({exc})", RESET_HINT) from exc


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    write_text_atomic(path, json.dumps(data, indent=2) + "\n", durable=durable)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target.

    A crash (or kill -9) at any moment leaves either the old file or the new one, never half of
    one. The temporary file is named before it is created, so an interrupt at any step of the
    write, even inside the call that creates it, is cleaned up by the last `finally`.
    """
    data = memoryview(text.encode("utf-8"))
    tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            if hasattr(os, "fchmod"):  # whatever the umask: state is not a secret
                os.fchmod(fd, 0o644)
            while data:
                data = data[os.write(fd, data) :]
            if durable:  # survives a power cut, not just a crash; run.json does not need it
                os.fsync(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def read_text(path: Path) -> str:
    """A memory file's text; empty when it does not exist yet; undecodable bytes replaced."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
