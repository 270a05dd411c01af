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
    one, and never a stray temporary file after a failed write.
    """
    import tempfile  # only writers pay for it: `ralph status` never writes

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if hasattr(os, "fchmod"):  # mkstemp makes it owner-only; state is not a secret
                os.fchmod(f.fileno(), 0o644)
            f.write(text)
            f.flush()
            if durable:  # survives a power cut, not just a crash; run.json does not need it
                os.fsync(f.fileno())
        Path(tmp).replace(path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_text(path: Path) -> str:
    """A memory file's text; empty when it does not exist yet; undecodable bytes replaced."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
