"""What a Node tree declares, read through the one reader (rules/environment/nodedeclarations.py
parses):
`package.json`, npm's lockfile, an `.npmrc` in the tree, and the hash of every file a source
names (a tarball of the tree), so a tarball swapped after a build is a different declaration."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.process.treecode import NODE_MODULES
from ralph.rules.environment.declarations import Source
from ralph.rules.environment.nodedeclarations import (
    LOCKFILES,
    NPMRC,
    OTHER_LOCKS,
    PACKAGE_JSON,
    NodeDeclaration,
    read_lock,
    read_package,
)
from ralph.store.disk.reader import read_bytes
from ralph.store.environments.declared import MAX_DECLARING, artifact_hashes, source_blocks

RUN_NPM_CI = "the checks run with the environment as the run began; run npm ci first"


@dataclass(frozen=True)
class NodeDeclared:
    """A tree's Node declaration, its lockfile's bytes and the hashes of the files its
    sources name."""

    declaration: NodeDeclaration
    lock: bytes = b""
    artifacts: tuple[tuple[str, str], ...] = ()
    read: tuple[str, ...] = ()  # the root files read (package.json, the lockfile, .npmrc)
    other_lock: str | None = None  # yarn.lock or pnpm-lock.yaml, and no npm lockfile

    @property
    def digest(self) -> str:
        """Everything that goes into a node_modules built for it (the key of that build)."""
        lock = hashlib.sha256(self.lock).hexdigest()
        data = [self.declaration.canonical(), lock, [list(a) for a in self.artifacts]]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def blocks(self) -> list[tuple[Source, str]]:
        return source_blocks(self.declaration.sources, self.artifacts)

    def sources_text(self) -> str:
        return "".join(text for _, text in self.blocks())

    @property
    def files(self) -> list[str]:
        return [*self.read, *(p for p, _ in self.artifacts)]


def read_node(tree: Path, registry: str) -> NodeDeclared:
    """What `tree` declares for Node at its root; `registry`: the person's, as the run began
    (a lockfile entry from anywhere else is a source)."""
    out = NodeDeclaration()
    try:
        names = {p.name for p in tree.iterdir()}
    except OSError:
        names = set()
    if PACKAGE_JSON not in names:
        return NodeDeclared(out)
    read = [PACKAGE_JSON]
    data = _json(tree, PACKAGE_JSON, out)
    if data is not None:
        read_package(data, out)
    lock, other = b"", None
    lockfile = next((n for n in LOCKFILES if n in names), None)
    if lockfile is not None:
        read.append(lockfile)
        lock = _bytes(tree, lockfile, out) or b""
        if lock:
            try:
                read_lock(json.loads(lock), lockfile, registry, out)
            except ValueError as exc:
                out.unread.append(f"{lockfile}: not valid JSON ({exc})")
    else:
        other = next((n for n in OTHER_LOCKS if n in names), None)
    if NPMRC in names:
        read.append(NPMRC)
        out.sources.append(Source(NPMRC, "package-manager settings in the tree", (NPMRC,)))
    artifacts = artifact_hashes(tree, out.sources)
    return NodeDeclared(out, lock, artifacts, tuple(read), other)


def start_notes(project: Path, node: NodeDeclared) -> list[str]:
    """What to say when a run starts about the project's `node_modules`: missing, or older
    than the lockfile, while package.json declares dependencies; and a lockfile of another
    package manager ralph does not build from."""
    if not node.declaration.dependencies:
        return []
    out: list[str] = []
    if node.other_lock is not None:
        out.append(
            f"{node.other_lock} without package-lock.json: ralph builds node_modules with npm "
            "from package-lock.json only (run npm install to make one)"
        )
    modules = project / NODE_MODULES
    if not modules.is_dir():
        return [*out, f"{NODE_MODULES} is missing: {RUN_NPM_CI}"]
    lockfile = node.declaration.lockfile
    made = _mtime(modules / ".package-lock.json") or _mtime(modules)  # npm writes it last
    if lockfile is not None and _mtime(project / lockfile) > made:
        out.append(f"{NODE_MODULES} is older than {lockfile}: {RUN_NPM_CI}")
    return out


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _bytes(tree: Path, name: str, out: NodeDeclaration) -> bytes | None:
    try:
        return read_bytes(tree / name, limit=MAX_DECLARING, root=tree)
    except (OSError, RalphError) as exc:
        why = "no such file" if isinstance(exc, FileNotFoundError) else str(exc).splitlines()[0]
        out.unread.append(f"{name}: {why}")
        return None


def _json(tree: Path, name: str, out: NodeDeclaration) -> Any:
    data = _bytes(tree, name, out)
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError as exc:
        out.unread.append(f"{name}: not valid JSON ({exc})")
        return None
