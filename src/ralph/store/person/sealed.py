"""Sealed tests: a person's acceptance test files kept in ralph's private store, out of the
agent's reach (`ralph seal`; the sealed run is checks/sealed.py).

`<store>/sealed/` (0700): `manifest.json` lists each file (its root-relative path, the specs
whose test command runs it, the sha256 and size of its bytes, when it was sealed), and
`blobs/<sha256>` holds the bytes. A path is sealed once; it may decide for several specs (the
specs are a list, given as `--spec` more than once).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.store.disk.files import load_json, remove_file, write_json_atomic
from ralph.store.disk.private import ensure_store, store_dir

SEALED = "sealed"
FORMAT = 1


@dataclass(frozen=True)
class Sealed:
    path: str  # root-relative, forward slashes: where the file goes back
    specs: tuple[str, ...]  # the specs whose test command runs it
    sha256: str
    size: int
    when: float  # seconds since the epoch

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "specs": list(self.specs),
            "sha256": self.sha256,
            "size": self.size,
            "sealed_at": self.when,
        }


def sealed_dir(root: Path) -> Path:
    """Where the sealed files of the project at `root` are (not created here)."""
    return store_dir(root) / SEALED


def listing(root: Path) -> list[Sealed]:
    """Every sealed file, by path; [] when none. StateError when the manifest is damaged."""
    manifest = sealed_dir(root) / "manifest.json"
    if not manifest.exists():
        return []
    data = load_json(manifest, "the sealed tests' manifest")
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise _damaged(root)
    out: list[Sealed] = []
    for entry in files:
        try:
            out.append(
                Sealed(
                    str(entry["path"]),
                    tuple(str(s) for s in entry["specs"]),
                    str(entry["sha256"]),
                    int(entry["size"]),
                    float(entry["sealed_at"]),
                )
            )
        except (KeyError, TypeError, ValueError):
            raise _damaged(root) from None
    return sorted(out, key=lambda s: s.path)


def blob(root: Path, entry: Sealed) -> bytes:
    """The sealed bytes of `entry`; StateError when they are missing or not what was sealed."""
    try:
        data = (sealed_dir(root) / "blobs" / entry.sha256).read_bytes()
    except OSError:
        data = None
    if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
        raise StateError(
            f"the sealed copy of {entry.path} is missing or changed in {sealed_dir(root)}",
            "seal the file again from your own copy (ralph unseal forgets a broken one)",
        )
    return data


def for_spec(root: Path, spec: str) -> dict[str, bytes]:
    """Root-relative path -> sealed bytes, for the files sealed for `spec`."""
    return {e.path: blob(root, e) for e in listing(root) if spec in e.specs}


def add(root: Path, path: str, specs: tuple[str, ...], data: bytes) -> Sealed:
    """Keep `data` sealed at `path` for `specs` (the bytes first, then the manifest)."""
    ensure_store(root)
    folder = sealed_dir(root)
    blobs = folder / "blobs"
    for f in (folder, blobs):
        f.mkdir(mode=0o700, exist_ok=True)
        f.chmod(0o700)
    sha = hashlib.sha256(data).hexdigest()
    target = blobs / sha
    if not target.exists():
        tmp = blobs / f"{sha}.tmp"
        tmp.write_bytes(data)
        tmp.chmod(0o600)
        tmp.replace(target)
    entry = Sealed(path, specs, sha, len(data), time.time())
    others = [e for e in listing(root) if e.path != path]
    _save(root, [*others, entry])
    return entry


def forget(root: Path, path: str) -> None:
    """`path` is no longer sealed; its bytes go when no other entry holds the same."""
    entries = listing(root)
    gone = [e for e in entries if e.path == path]
    kept = [e for e in entries if e.path != path]
    _save(root, kept)
    for e in gone:
        if all(k.sha256 != e.sha256 for k in kept):
            with contextlib.suppress(OSError):
                remove_file(sealed_dir(root) / "blobs" / e.sha256)


def _save(root: Path, entries: list[Sealed]) -> None:
    files = [e.to_json() for e in sorted(entries, key=lambda e: e.path)]
    write_json_atomic(sealed_dir(root) / "manifest.json", {"format": FORMAT, "files": files})


def _damaged(root: Path) -> StateError:
    return StateError(
        f"the sealed tests' manifest in {sealed_dir(root)} is damaged",
        "restore it from a backup, or remove the folder and seal the files again",
    )
