"""`ralph run --spec PATH`: the specs a run is limited to, named as the user typed them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ralph.errors import UsageError
from ralph.specs.discovery import SEARCHED, find_spec_paths


def select_specs(root: Path, given: Sequence[str]) -> tuple[str, ...]:
    """The spec paths (relative to `root`, in discovery order) that `given` names; a path
    relative to the current folder or to the project root, or absolute. One clear error for
    a path that is not a spec of this project."""
    known = find_spec_paths(root)
    chosen: set[str] = set()
    for text in given:
        path = _relative(root, text)
        if path not in known:
            listed = ", ".join(known[:6]) + (", ..." if len(known) > 6 else "")
            raise UsageError(
                f"--spec {text}: not a spec of {root} ({SEARCHED})",
                f"give one of: {listed}" if known else "write a spec first (ralph init)",
            )
        chosen.add(path)
    return tuple(p for p in known if p in chosen)


def _relative(root: Path, text: str) -> str | None:
    """The root-relative posix path `text` names, trying the current folder first."""
    raw = Path(text).expanduser()
    resolved_root = root.resolve()
    candidates = [raw] if raw.is_absolute() else [Path.cwd() / raw, root / raw]
    for candidate in candidates:
        try:
            rel = candidate.resolve().relative_to(resolved_root)
        except (ValueError, OSError):
            continue
        if (resolved_root / rel).is_file():
            return rel.as_posix()
    return None
