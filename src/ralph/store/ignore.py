"""Which paths a snapshot leaves out: `.ralph/`, `.ralphignore`, and `.gitignore` outside git."""

from __future__ import annotations

from pathlib import Path

import pathspec

from ralph.errors import StateError
from ralph.store.workspace import STATE_DIR

RALPHIGNORE = ".ralphignore"


class RalphIgnore:
    """Git mode: git already applies .gitignore; ralph leaves out `.ralph/` and `.ralphignore`."""

    def __init__(self, spec: pathspec.GitIgnoreSpec | None) -> None:
        self.spec = spec
        self._folders: dict[str, bool] = {}  # folder -> ignored, kept across takes

    def __call__(self, rel: str, is_dir: bool) -> bool:
        if rel == STATE_DIR or rel.startswith(STATE_DIR + "/"):
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
    """Walk mode: `.gitignore` and `.ralphignore` at the root, matched with a memo across takes."""

    def __init__(self, root: Path, ralphignore: pathspec.GitIgnoreSpec | None) -> None:
        # Two specs, not one: a `!pattern` in .ralphignore must not re-include what
        # .gitignore excludes, just as it cannot in git mode.
        gitignore = load_ignore(root / ".gitignore", strict=False)
        self._specs = [s for s in (gitignore, ralphignore) if s is not None]
        self._memo: dict[str, bool] = {}

    def hit(self, rel: str, memo: dict[str, bool]) -> bool:
        """Whether `rel` (folders end in "/") is ignored; noted in `memo`, the next take's."""
        if not self._specs:
            return False
        # Matching is the slow part of a walk; the set of paths barely changes between takes.
        hit = self._memo.get(rel)
        if hit is None:
            hit = any(spec.match_file(rel) for spec in self._specs)
        memo[rel] = hit
        return hit

    def keep(self, memo: dict[str, bool]) -> None:
        self._memo = memo


def load_ignore(path: Path, *, strict: bool) -> pathspec.GitIgnoreSpec | None:
    """The patterns of an ignore file; None when it is absent or has none. `strict` turns an
    unreadable file or a bad pattern into an error; otherwise bad lines are skipped, as git does."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        if not strict:
            return None
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
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
