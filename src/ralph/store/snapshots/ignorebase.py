"""The ignore rules a person set: which files a snapshot compares is theirs to decide.

ralph records the rules the first time it runs in a project (every .gitignore, .ralphignore,
.git/info/exclude and the excludes file named in git config) in `ignore-rules.json` of its
private store (store/disk/private.py: a copy an agent forges in `.ralph/` is never read).
Those rules, or the ones a person last accepted (`ralph accept`), decide what is compared; an
edit of a rule file is a change like any other but hides nothing until a person accepts it.
Dependency, build and cache output (node_modules/, .venv/, __pycache__/, target/ ...) that a
new rule ignores is left out without asking: honest scaffolding needs no one's say.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import pathspec

from ralph.errors import RalphError, StateError
from ralph.rules.agents.agentfiles import agent_file
from ralph.store.disk import reader
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.repository import git
from ralph.store.snapshots.ignore import RALPHIGNORE, SCAFFOLD_GLOBS, SCAFFOLD_NAMES, is_scaffolding

RULES_FILE = "ignore-rules.json"
INFO_EXCLUDE = ".git/info/exclude"
EXCLUDES_FILE = "core.excludesFile"

Rules = dict[str, str]  # source -> its text; .gitignore sources by their top-level path


def scaffolding_pattern(pattern: str) -> bool:
    """Does an ignore pattern name scaffolding only ("node_modules/", "**/__pycache__", an
    agent's own files such as aider's ".aider*")?"""
    core = pattern.strip().removeprefix("/")
    while core.startswith("**/"):
        core = core[3:]
    for tail in ("/**", "/*", "/"):
        core = core.removesuffix(tail)
    if not core or "**" in core or any(c in core for c in "[]?\\"):
        return False
    name = core.rsplit("/", 1)[-1]
    if core == name and agent_file(name):  # aider's `.aider*`, `.claude/`: at the top only
        return True
    return name in SCAFFOLD_NAMES or name in SCAFFOLD_GLOBS


def current_rules(root: Path, repo: git.Repo | None = None) -> Rules:
    """The ignore rules of the project as they are on disk now."""
    repo = repo if repo is not None else git.find_repo(root)
    files: list[tuple[str, Path | None]] = [(RALPHIGNORE, root / RALPHIGNORE)]
    if not repo.usable:
        files.append((".gitignore", root / ".gitignore"))
    else:
        top = Path(repo.top)
        # git does not read the rules inside a package it ignores either
        files += [(rel, top / rel) for rel in git.ignore_files(repo) if not is_scaffolding(rel)]
        files += [(INFO_EXCLUDE, git.info_exclude(repo)), (EXCLUDES_FILE, git.excludes_file(repo))]
    rules: Rules = {}
    for name, path in files:
        patterns = _patterns(_read(path) or "") if path is not None else []
        if patterns:  # comments and blank lines are no rules
            rules[name] = "\n".join(patterns) + "\n"
    return rules


def baseline(root: Path, repo: git.Repo | None = None) -> Rules:
    """The rules a person set: recorded now when ralph never recorded them (and .ralph/ exists)."""
    path = store_dir(root) / RULES_FILE
    if path.exists():
        data = load_json(path, f"ralph's record of the ignore rules ({path})")
        rules = data.get("rules") if isinstance(data, dict) else None
        if not isinstance(rules, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in rules.items()
        ):
            raise StateError(
                f"{path}: not the ignore rules ralph recorded",
                "run `ralph accept` to record the rules as they are now",
            )
        return dict(rules)
    rules = current_rules(root, repo)
    if path.parent.is_dir():  # a project ralph works in, not a mere look at a folder
        write_json_atomic(path, {"rules": rules})
    return rules


def pending_ignore_changes(root: Path, repo: git.Repo | None = None) -> list[str]:
    """What differs in the ignore rules from the ones a person set, one line each; only
    changes that could hide a file other than scaffolding count. `repo`: the project's, its
    git held by the run's lock (None: found now, with a lock of its own)."""
    repo = repo if repo is not None else git.find_repo(root)
    return rule_changes(baseline(root, repo), current_rules(root, repo))


def accept_ignore_rules(root: Path, key: str | None = None, repo: git.Repo | None = None) -> bool:
    """Record the rules on disk as the person's; with `key` (from `rules_key`) only if they
    are still the ones that were shown. True when recorded."""
    rules = current_rules(root, repo)
    if key is not None and rules_key(rules) != key:
        return False
    write_json_atomic(ensure_store(root) / RULES_FILE, {"rules": rules})
    return True


def rules_key(rules: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()


def rule_changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """Lines saying which changes of `after` from `before` could hide files."""
    out: list[str] = []
    for source in sorted(before.keys() | after.keys()):
        old, new = _patterns(before.get(source, "")), _patterns(after.get(source, ""))
        if old == new:
            continue
        matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            for line in new[j1:j2]:  # a new pattern hides, a new `!pattern` shows
                if not line.startswith("!") and not scaffolding_pattern(line):
                    out.append(f"{source}: `{line}` was added (it can hide source files)")
            for line in old[i1:i2]:
                if line.startswith("!") and not scaffolding_pattern(line[1:]):
                    out.append(f"{source}: `{line}` was removed (it can hide source files)")
    return out


class BaselineMatcher:
    """Is a path ignored by the recorded git rules? Paths relative to the git top level."""

    def __init__(self, rules: Mapping[str, str]) -> None:
        self.spec = pathspec.GitIgnoreSpec.from_lines(_combined(rules))
        self._memo: dict[str, bool] = {}  # kept across takes: the ignored set barely moves

    def __call__(self, path: str) -> bool:
        hit = self._memo.get(path)
        if hit is None:
            hit = self._memo[path] = self._match(path)
        return hit

    def _match(self, path: str) -> bool:
        # As in git, nothing in an ignored folder comes back whatever later patterns say.
        end = path.find("/")
        while end != -1 and end != len(path) - 1:
            if self.spec.match_file(path[: end + 1]):
                return True
            end = path.find("/", end + 1)
        return self.spec.match_file(path)


def watched_files(repo: git.Repo) -> list[Path]:
    """Files outside the tree whose change can change the rules: the exclude files and the
    git config that names one."""
    files = [git.info_exclude(repo), git.excludes_file(repo)]
    if repo.git_dir:
        files.append(Path(repo.git_dir, "config"))
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    files += [Path("~/.gitconfig").expanduser(), Path(xdg, "git", "config")]
    return [f for f in files if f is not None]


def gitignore_spec(rules: Mapping[str, str]) -> pathspec.GitIgnoreSpec | None:
    """Without git: the root .gitignore as a person set it."""
    return _spec(rules.get(".gitignore", ""))


def ralphignore_spec(rules: Mapping[str, str]) -> pathspec.GitIgnoreSpec | None:
    return _spec(rules.get(RALPHIGNORE, ""))


def _spec(text: str) -> pathspec.GitIgnoreSpec | None:
    spec = pathspec.GitIgnoreSpec.from_lines(_valid(text.splitlines()))
    return spec if any(p.include is not None for p in spec.patterns) else None


def _combined(rules: Mapping[str, str]) -> list[str]:
    """Every git rule as a top-level pattern, later ones winning as in git: the excludes
    file, info/exclude, then each .gitignore from the shallowest folder to the deepest."""
    lines = [*_patterns(rules.get(EXCLUDES_FILE, "")), *_patterns(rules.get(INFO_EXCLUDE, ""))]
    files = sorted((s for s in rules if s.endswith(".gitignore")), key=lambda s: (s.count("/"), s))
    for source in files:
        folder = source[: -len(".gitignore")]
        lines.extend(_anchored(p, folder) for p in _patterns(rules[source]))
    return list(_valid(lines))


def _anchored(pattern: str, folder: str) -> str:
    """A pattern of `folder`/.gitignore as one of the top level's."""
    if not folder:
        return pattern
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    # With a slash (not at the end) a pattern is relative to its folder, else to any below it.
    inner = "/" in body.rstrip("/")
    body = folder + (body.removeprefix("/") if inner else "**/" + body)
    return ("!" if negated else "") + body


def _patterns(text: str) -> list[str]:
    return [ln.rstrip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def _valid(lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError:
            continue  # git skips a bad pattern too
        yield line


def _read(path: Path) -> str | None:
    try:  # the one reader: a link, a pipe or a device is not read
        return reader.read_text(path, limit=reader.TEXT_LIMIT, root=path.parent, missing=None)
    except (OSError, RalphError):
        return None
