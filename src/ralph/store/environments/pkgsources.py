"""The package sources a person accepted, kept in the private store.

A source (a path or file URL, a wheel or folder in the tree, a find-links, index or constraint
line, `[tool.uv.sources]`, a `uv.toml` or `pip.conf` in the tree:
rules/environment/declarations.py; a
`file:`, git or URL dependency, a lockfile entry from another registry, an `.npmrc` in the tree:
rules/environment/nodedeclarations.py) changes what the checks' environment holds, so it changes
how the
checks judge: it follows the rule `ralph.yaml` follows (rules/environment/settings.py). One that
changed
during a run waits for `ralph accept`; one a person made between runs, or that was there at the
first run, is taken. A dependency by name from the person's index is no source: it needs no
one's say.
"""

from __future__ import annotations

from pathlib import Path

from ralph.rules.environment.declarations import Source
from ralph.rules.environment.settings import Record, decide
from ralph.store.environments.declared import read_declared
from ralph.store.environments.nodedeclared import read_node
from ralph.store.environments.npmsettings import registry
from ralph.store.person.settings import accept_now, load_record, save_record

SOURCES_FILE = "package-sources.json"
NAME = "package sources"


def _load(root: Path) -> Record | None:
    record = load_record(root, SOURCES_FILE)
    return record if record is None or record.accepted is not None else None


def _save(root: Path, record: Record) -> None:
    save_record(root, record, SOURCES_FILE)


def current(root: Path) -> str:
    """The sources the project at `root` declares, Python's then Node's."""
    return read_declared(root).sources_text() + read_node(root, registry(root)).sources_text()


def begin(root: Path) -> str | None:
    """The run holds the project: sources a person set since the last run (or a first run's)
    are accepted; the line to say when the tree's differ from the accepted ones."""
    now = current(root)
    record = _load(root)
    decision = decide(record, now, live=False)
    if decision.take or record is None:
        record = Record(now, now)
    _save(root, Record(record.accepted, record.seen, running=True))
    if not decision.held:
        return None
    return (
        "the package sources the tree declares changed during a run and no person accepted "
        "them: a DONE waits until one does (see them: ralph accept)"
    )


def finish(root: Path) -> None:
    """The run ends: the sources as it leaves them (a change the agent made stays held)."""
    record = _load(root)
    if record is not None:
        _save(root, Record(record.accepted, current(root), running=False))


def accepted(root: Path) -> str | None:
    """The sources a person accepted; None before any run recorded them."""
    record = _load(root)
    return None if record is None else record.accepted


def pending(root: Path) -> tuple[str, str] | None:
    """(accepted, now) when the project's sources differ from the accepted ones."""
    record = _load(root)
    if record is None or record.accepted is None:
        return None
    now = current(root)
    return None if now == record.accepted else (record.accepted, now)


def accept(root: Path, shown: str) -> bool:
    """The sources as they are now become the accepted ones, if they are still those shown."""
    return accept_now(root, current(root), shown, SOURCES_FILE)


def why_held(project: Path, blocks: list[tuple[Source, str]]) -> str | None:
    """Why the sources of a tree (`blocks`: each and its text, Declared.blocks) wait for a
    person, naming the first that differs from the accepted ones (None: they are those)."""
    taken = accepted(project) or ""
    if "".join(text for _, text in blocks) == taken:
        return None
    known = _blocks(taken)
    new = [s for s, text in blocks if text not in known]
    first = new[0].describe() if new else "a source was removed"
    more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
    return (
        f"a package source no person accepted: {first}{more}; it changed during a run, so "
        "no DONE counts on it until a person accepts it (see it: ralph accept), or undo it"
    )


def _blocks(text: str) -> set[str]:
    """The sources of an accepted text, one block each (its line and its files' hashes)."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("    ") and out:
            out[-1] += line
        else:
            out.append(line)
    return set(out)
