"""Which mutants the mutation check runs (pure): the Python lines changed since the run began,
outside the tests and the specs, and a deterministic choice spread over files and lines when
there are more than it may run."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import zip_longest

from ralph.rules.evidence.mutants import Mutant, changes_code, mutants, tree_of
from ralph.rules.evidence.testfiles import is_test


def mutable(path: str, test_globs: Sequence[str], specs: Iterable[str]) -> bool:
    """A changed file the check mutates: Python source, not a test and not a spec."""
    return path.endswith(".py") and not is_test(path, test_globs) and path not in set(specs)


def changed_lines(old: str | None, new: str) -> set[int]:
    """The 1-based lines of `new` that are not in `old` (every line of an added file)."""
    new_lines = new.splitlines()
    if old is None:
        return set(range(1, len(new_lines) + 1))
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new_lines, autojunk=False)
    out: set[int] = set()
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return out


def plan(
    changed: Mapping[str, tuple[str | None, str]],
    limit: int,
    only: Mapping[str, set[int]] | None = None,
) -> tuple[list[Mutant], int]:
    """The mutants to run for `changed` (path -> (its text at the start or None, its text
    now)), at most `limit`, and how many mutants there were in all. Each chosen one parses to
    a tree other than the file's; the order is the files' and the lines' (deterministic).
    `only`: path -> the lines to mutate (of the changed ones, those the tests execute)."""
    now = {path: new for path, (_, new) in changed.items()}
    every = {
        path: mutants(path, new, changed_lines(old, new) if only is None else only[path])
        for path, (old, new) in sorted(changed.items())
    }
    chosen: list[Mutant] = []
    trees: dict[str, str | None] = {}  # each file's tree, parsed once
    for mutant in spread(every):
        if len(chosen) >= limit:
            break
        if mutant.path not in trees:
            trees[mutant.path] = tree_of(now[mutant.path])
        if changes_code(now[mutant.path], mutant, trees[mutant.path]):
            chosen.append(mutant)
    total = sum(len(found) for found in every.values())
    return sorted(chosen, key=lambda m: (m.path, m.start, m.end, m.text)), total


def spread(by_file: Mapping[str, list[Mutant]]) -> Iterator[Mutant]:
    """Every mutant, in an order that takes one of each file in turn and, within a file, one
    of each line in turn: the first `n` cover as many files and lines as `n` can."""
    yield from _round_robin(_by_line(found) for _, found in sorted(by_file.items()))


def _by_line(found: list[Mutant]) -> list[Mutant]:
    lines: dict[int, list[Mutant]] = {}
    for mutant in found:
        lines.setdefault(mutant.line, []).append(mutant)
    return list(_round_robin(lines[n] for n in sorted(lines)))


def _round_robin(groups: Iterable[list[Mutant]]) -> Iterator[Mutant]:
    for row in zip_longest(*groups):
        yield from (m for m in row if m is not None)
