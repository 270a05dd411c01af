"""Spec discovery: which files are specs, in which order, and their per-spec file names."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ralph.errors import RalphError, SpecError, docs_page
from ralph.rules.counts.spec import ROOT_PROMPTS, Spec, is_untouched_template, sort_key
from ralph.store.disk import reader

SPEC_DIRS = (".ralph/specs", "specs")
SPEC_SUFFIX = ".spec.md"
SEARCHED = "PROMPT.md or RALPH_TASK.md at the project root, *.spec.md under specs/ or .ralph/specs/"


def find_spec_paths(root: Path) -> list[str]:
    """Relative paths of every spec under `root`, in discovery order."""
    found: set[str] = set()
    for name in ROOT_PROMPTS:
        if (root / name).is_file():
            found.add(name)
    for folder in SPEC_DIRS:
        base = root / folder
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for filename in filenames:
                if filename.endswith(SPEC_SUFFIX):
                    rel = Path(dirpath, filename).relative_to(root)
                    found.add(rel.as_posix())
    return sorted(found, key=sort_key)


def read_spec(root: Path, path: str) -> Spec | None:
    """Read one spec; None when it vanished since it was found (deleted mid-run). A link that
    leads outside the project is refused (UnsafePath): its target is not put in a prompt."""
    try:
        data = _read_inside(root, path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SpecError(
            f"{path}: cannot read spec ({exc.strerror or exc})",
            "check the file's permissions, or move it out of the spec folders",
        ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{path}: spec is not valid UTF-8 (byte {exc.start})",
            "save the file as UTF-8",
        ) from exc
    return Spec(path=path, text=text, content_hash=hashlib.sha256(data).hexdigest())


def _read_inside(root: Path, path: str) -> bytes:
    """A spec's bytes, following a link only while it stays inside the project (a person's
    `specs/a.spec.md -> ../notes/a.md`): the one reader's rule (store/disk/reader.py), so a link
    that leads outside, a pipe or a device is refused before anything is read, and a spec is
    read up to its bound."""
    return reader.read_bytes(root / path, limit=reader.TEXT_LIMIT, root=root, follow=True)


def spec_file_hash(root: Path, path: str) -> str | None:
    """The content hash of a spec file as it is now; None when it is gone or unreadable.

    Never raises: it is used while a rotation is recorded, which must not be lost.
    """
    try:
        return hashlib.sha256(_read_inside(root, path)).hexdigest()
    except (OSError, RalphError):  # a pipe or a link planted there: no hash, never a hang
        return None


def discover_specs(root: Path, templates: list[str] | None = None) -> list[Spec]:
    """Read every spec; raise SpecError when there is none or one cannot be read.

    A spec still identical to `ralph init`'s template is left out (its path is added to
    `templates`, for the run to say so); when nothing else is left, that is the error."""
    paths = find_spec_paths(root)
    if not paths:
        raise SpecError(
            f"no specs found in {root}",
            f"create one ({SEARCHED}), or run `ralph init` for a PROMPT.md template",
        )
    specs = [spec for spec in (read_spec(root, p) for p in paths) if spec is not None]
    untouched = [spec.path for spec in specs if is_untouched_template(spec.text)]
    if templates is not None:
        templates.extend(untouched)
    specs = [spec for spec in specs if spec.path not in untouched]
    if not specs and untouched:
        raise SpecError(
            f"{untouched[0]} is still the template `ralph init` wrote: nothing to build yet",
            f"describe what you want built in {untouched[0]} (or add specs/<name>.spec.md), "
            "then run again",
        )
    if not specs:
        raise SpecError(
            f"no specs found in {root}",
            f"create one ({SEARCHED}; {docs_page('tutorial/getting-started.md')})",
        )
    return specs
