"""Which paths a snapshot leaves out: `.ralph/`, what the ignore rules a person set leave out
(store/snapshots/ignorebase.py), and scaffolding (dependency, build and cache output) that the
rules on
disk now leave out."""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pathspec

from ralph.errors import RalphError, StateError
from ralph.rules.agents.agentfiles import agent_file
from ralph.store.disk import reader
from ralph.store.disk.workspace import STATE_DIR

RALPHIGNORE = ".ralphignore"

# Folders and files that tools make and nobody edits by hand.
SCAFFOLD_NAMES = frozenset(
    (
        "node_modules", ".venv", "venv", ".env", "env", "__pycache__", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".hypothesis", ".eggs", "target", "dist",
        "build", "out", ".gradle", ".next", ".nuxt", ".svelte-kit", ".parcel-cache", ".turbo",
        ".cache", "coverage", "htmlcov", ".coverage", ".nyc_output", "bower_components",
        ".terraform", ".idea", ".vscode", ".DS_Store", "Thumbs.db", STATE_DIR, "_build",
        "deps", ".dart_tool", ".stack-work", "zig-cache", "zig-out", ".angular", ".expo",
    )
)  # fmt: skip
SCAFFOLD_GLOBS = (
    "*.pyc", "*.pyo", "*.pyd", "*.egg-info", "*.class", "*.o", "*.obj", "*.so", "*.dylib",
    "*.dll", "*.a", "*.lib", "*.exe", "*.log", "*.tmp", "*.swp", "*~", "*.tsbuildinfo",
    ".coverage.*", "*.lcov", "*.cover",
)  # fmt: skip


def is_scaffolding(rel: str) -> bool:
    """Is `rel` (a folder may end in "/") tool output: in a scaffolding folder or named so,
    or an agent CLI's own files (rules/agents/agentfiles.py)?"""
    parts = rel.rstrip("/").split("/")
    if any(part in SCAFFOLD_NAMES for part in parts) or agent_file(parts[0]):
        return True
    return any(fnmatchcase(parts[-1], glob) for glob in SCAFFOLD_GLOBS)


class RalphIgnore:
    """Git mode: `.ralph/` and the person's `.ralphignore` (git applies .gitignore), and the
    scaffolding that the `.ralphignore` on disk at start leaves out."""

    def __init__(
        self, spec: pathspec.GitIgnoreSpec | None, now: pathspec.GitIgnoreSpec | None = None
    ) -> None:
        self.spec = spec
        self.now = now
        self._folders: dict[str, bool] = {}  # folder -> ignored, kept across takes

    def __call__(self, rel: str, is_dir: bool) -> bool:
        if rel == STATE_DIR or rel.startswith(STATE_DIR + "/"):
            return True
        now = self.now
        if now is not None and is_scaffolding(rel) and now.match_file(rel + "/" * is_dir):
            return True
        spec = self.spec
        if spec is None:
            return False
        # As in git, a file in an ignored folder stays ignored whatever later patterns say.
        end = rel.find("/")
        while end != -1:
            folder = rel[: end + 1]
            hit = self._folders.get(folder)
            if hit is None:
                hit = self._folders[folder] = spec.match_file(folder)
            if hit:
                return True
            end = rel.find("/", end + 1)
        return spec.match_file(rel + "/" if is_dir else rel)


class WalkIgnore:
    """Walk mode: `.gitignore` and `.ralphignore` at the root as a person set them, and the
    scaffolding those files on disk leave out; matched with a memo across takes."""

    def __init__(self, root: Path, person: list[pathspec.GitIgnoreSpec | None]) -> None:
        # Separate specs, not one: a `!pattern` in .ralphignore must not re-include what
        # .gitignore excludes, just as it cannot in git mode.
        self._specs = [s for s in person if s is not None]
        self._files = (root / ".gitignore", root / RALPHIGNORE)
        self._stats: list[tuple[int, int, int, int] | None] = []
        self._now: list[pathspec.GitIgnoreSpec] = []
        self._memo: dict[str, bool] = {}

    def refresh(self) -> None:
        """Before a walk: the rule files on disk now, for their scaffolding."""
        stats = [stat_key(path) for path in self._files]
        if stats != self._stats:
            self._stats = stats
            specs = (load_ignore(path, strict=False) for path in self._files)
            self._now = [s for s in specs if s is not None]
            self._memo = {}

    def hit(self, rel: str, memo: dict[str, bool]) -> bool:
        """Whether `rel` (folders end in "/") is ignored; noted in `memo`, the next take's."""
        # Matching is the slow part of a walk; the set of paths barely changes between takes.
        hit = self._memo.get(rel)
        if hit is None:
            hit = any(spec.match_file(rel) for spec in self._specs) or (
                is_scaffolding(rel) and any(spec.match_file(rel) for spec in self._now)
            )
        memo[rel] = hit
        return hit

    def keep(self, memo: dict[str, bool]) -> None:
        self._memo = memo


def load_ignore(path: Path, *, strict: bool) -> pathspec.GitIgnoreSpec | None:
    """The patterns of an ignore file; None when it is absent or has none. `strict` turns an
    unreadable file or a bad pattern into an error; otherwise bad lines are skipped, as git does."""
    try:  # the one reader: a link, a pipe or a device is not read (never a hang)
        text = reader.read_bytes(path, limit=reader.TEXT_LIMIT, root=path.parent).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, RalphError) as exc:
        if not strict:
            return None
        reason = (
            exc.message
            if isinstance(exc, RalphError)
            else exc.strerror
            if isinstance(exc, OSError) and exc.strerror
            else str(exc)
        )
        raise StateError(
            f"{path.name}: cannot read it ({reason})",
            f"fix {path.name} (gitignore syntax, UTF-8) or delete it",
        ) from exc
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError as exc:
            if not strict:
                continue
            raise StateError(
                f"{path.name}:{number}: invalid pattern {line!r} ({exc})",
                f"fix or remove that line of {path.name} (gitignore syntax)",
            ) from exc
        lines.append(line)
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    # Blank lines and comments compile to patterns that match nothing.
    return spec if any(p.include is not None for p in spec.patterns) else None


def stat_key(path: Path) -> tuple[int, int, int, int] | None:
    """What tells a file changed without reading it (inode, size, mtime, ctime); None if absent."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
