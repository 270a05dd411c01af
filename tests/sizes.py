"""The size ratchet: a recorded figure per module (and per class over CLASS_FLOOR lines).

The figures live in tests/sizes.txt, one line each, `NAME FIGURE [REASON]` (a module
`ralph.run.loop`, a class `ralph.run.loop:SpecRun`), so that two branches rarely touch one line.
tests/test_layout.py fails when:

- a module or class is longer than its figure (it grew), or a class without one is longer than
  CLASS_FLOOR: split it by noun, or record why it grows;
- a figure above the old hard cap (MODULE_CAP, CLASS_CAP) has no reason;
- a figure is higher than at the branch's merge base with `main` (read with git when there is one)
  and does not state a reason of its own (a hand raise without a reason, or reusing the old one);
- a module, or a class over CLASS_FLOOR, has no figure, or a figure names what is gone.

Shrinking is free: a module under its figure passes. `python -m tests.sizes --update` lowers every
figure to today's size, adds and removes entries, and raises a figure only when given
`--reason TEXT` (optionally only for the NAMEs given after it); it never raises one silently.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
FIGURES = Path(__file__).resolve().parent / "sizes.txt"
MODULE_CAP = 400  # the old hard caps: above them a figure must say why
CLASS_CAP = 300
CLASS_FLOOR = 100  # a class is recorded once it is longer than this; shorter ones are held to it
BASE_BRANCH = "main"

_HEADER = f"""\
# The size ratchet of tests/test_layout.py (tests/sizes.py says how it works): every module of
# src/ralph and every class over {CLASS_FLOOR} lines, in lines, one a line: NAME FIGURE [REASON].
# Shrinking is free; `python -m tests.sizes --update` lowers the figures to today's sizes.
# Growing past a figure needs a reason: split the module by noun, or, if it grows by design,
# `python -m tests.sizes --update --reason "why" NAME`. Above {MODULE_CAP} lines for a module or
# {CLASS_CAP} for a class, a figure always states its reason.
"""


@dataclass(frozen=True)
class Figure:
    lines: int
    reason: str = ""


def module_name(path: Path, src: Path = SRC) -> str:
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _classes(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """Each class's dotted name inside its module (nested ones under their parents) and length."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{node.name}"
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                yield name, node.end_lineno - node.lineno + 1
            yield from _classes(node, f"{name}.")
        else:
            yield from _classes(node, prefix)


def measure(src: Path = SRC) -> dict[str, int]:
    """Every module's length in lines, and every class's as `module:Class`."""
    sizes: dict[str, int] = {}
    for path in sorted((src / "ralph").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = module_name(path, src)
        sizes[name] = len(text.splitlines())
        sizes.update((f"{name}:{cls}", n) for cls, n in _classes(ast.parse(text)))
    return sizes


def cap(name: str) -> int:
    return CLASS_CAP if ":" in name else MODULE_CAP


def recorded(name: str, size: int) -> bool:
    """Whether `name` needs a figure: every module, and a class over CLASS_FLOOR."""
    return ":" not in name or size > CLASS_FLOOR


def unrecorded(name: str) -> int:
    """The figure of a name without one: a new module may start at the cap, a class is held
    to the floor (growing past it is growing)."""
    return CLASS_FLOOR if ":" in name else MODULE_CAP


def parse(text: str, where: str = "tests/sizes.txt", *, merged: bool = False) -> dict[str, Figure]:
    """The figures of the file's text. A name recorded twice is what git's union merge of two
    branches leaves (.gitattributes): refused, or with `merged` the higher figure kept (safe:
    the update lowers it to today's size, and a raise keeps the reason it came with)."""
    figures: dict[str, Figure] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split(maxsplit=2)
        if len(words) < 2 or not words[1].isdigit():
            raise ValueError(f"{where}:{number}: expected `NAME FIGURE [REASON]`, got {line!r}")
        figure = Figure(int(words[1]), words[2] if len(words) > 2 else "")
        old = figures.get(words[0])
        if old is not None and not merged:
            raise ValueError(
                f"{where}:{number}: {words[0]} is recorded twice (a merge kept both branches' "
                "lines): python -m tests.sizes --update keeps one"
            )
        if old is None or (figure.lines, bool(figure.reason)) > (old.lines, bool(old.reason)):
            figures[words[0]] = figure
    return figures


def render(figures: Mapping[str, Figure]) -> str:
    lines = [f"{name} {f.lines} {f.reason}".rstrip() for name, f in sorted(figures.items())]
    return _HEADER + "\n".join(lines) + "\n"


def _raise_hint(name: str) -> str:
    return (
        "split it by noun (one idea per module, pure rules in ralph/rules/; never pack code to "
        f'fit), or, if it grows by design: python -m tests.sizes --update --reason "why" {name}'
    )


def problems(
    figures: Mapping[str, Figure],
    sizes: Mapping[str, int],
    base: Mapping[str, Figure] | None = None,
) -> list[str]:
    """What breaks the ratchet, one line each with what to do; [] when it holds.

    `sizes` is what `measure` returns; `base` the figures at the merge base (None: unknown)."""
    found: list[str] = []
    for name, size in sorted(sizes.items()):
        figure = figures.get(name)
        if figure is None and size <= unrecorded(name):
            if recorded(name, size):
                found.append(f"{name}: {size} lines and no figure: python -m tests.sizes --update")
        elif size > (limit := figure.lines if figure else unrecorded(name)):
            what = "its figure" if figure else "the limit without a figure"
            found.append(
                f"{name} grew to {size} lines, {size - limit} over {what} of {limit}: "
                f"{_raise_hint(name)}"
            )
    for name, figure in sorted(figures.items()):
        if name not in sizes:
            found.append(f"{name} is gone: python -m tests.sizes --update drops its figure")
        if figure.lines > cap(name) and not figure.reason:
            found.append(
                f"{name}: its figure {figure.lines} is over {cap(name)} and states no reason: "
                f"{_raise_hint(name)}"
            )
        before = (base or {}).get(name)
        raised = before is not None and figure.lines > before.lines
        if raised and before is not None and figure.reason in ("", before.reason):
            found.append(
                f"{name}: its figure went from {before.lines} to {figure.lines} without a "
                f"reason of its own: {_raise_hint(name)}"
            )
    return found


def update(
    figures: Mapping[str, Figure],
    sizes: Mapping[str, int],
    reason: str = "",
    names: Iterable[str] = (),
) -> tuple[dict[str, Figure], list[str]]:
    """Figures lowered to `sizes`, entries added and dropped; a figure is raised (and a new one
    over its cap recorded) only with a `reason`, and only for `names` when some are given.
    Returns the new figures and what was refused, one line each."""
    only = set(names)
    result: dict[str, Figure] = {}
    refused: list[str] = []
    for name, size in sizes.items():
        old = figures.get(name)
        if not recorded(name, size):
            continue
        grows = size > (old.lines if old is not None else unrecorded(name))
        if not grows:
            keep = old.reason if old is not None and size > cap(name) else ""
            kept = old is not None and size == old.lines
            result[name] = old if kept and old is not None else Figure(size, keep)
        elif reason and (not only or name in only):
            result[name] = Figure(size, reason)
        else:
            if old is not None:
                result[name] = old
            refused.append(f"{name}: {size} lines, over {old.lines if old else unrecorded(name)}")
    return result, refused


def base_figures(root: Path = ROOT) -> dict[str, Figure] | None:
    """The figures at the merge base of HEAD and `main`; None where git cannot say."""
    relative = FIGURES.relative_to(root).as_posix()
    try:
        base = subprocess.run(
            ["git", "-C", str(root), "merge-base", "HEAD", BASE_BRANCH],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
        text = subprocess.run(
            ["git", "-C", str(root), "show", f"{base}:{relative}"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    try:
        return parse(text, f"{BASE_BRANCH}'s {relative}", merged=True)
    except ValueError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.sizes", description=__doc__)
    parser.add_argument("--update", action="store_true", help="rewrite tests/sizes.txt")
    parser.add_argument("--reason", default="", help="why the named (or every) grown one grows")
    parser.add_argument("names", nargs="*", help="raise only these (with --reason)")
    args = parser.parse_args(argv)
    reason = " ".join(args.reason.split())
    text = FIGURES.read_text(encoding="utf-8") if FIGURES.exists() else ""
    try:
        figures = parse(text, merged=args.update)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    sizes = measure()
    if not args.update:
        found = problems(figures, sizes, base_figures())
        print("\n".join(found) or "every module and class is within its figure")
        return 1 if found else 0
    new, refused = update(figures, sizes, reason, args.names)
    FIGURES.write_text(render(new), encoding="utf-8")
    for name in sorted(set(figures) | set(new)):
        old, now = figures.get(name), new.get(name)
        if old != now:
            print(f"{name}: {old.lines if old else '-'} -> {now.lines if now else 'dropped'}")
    for line in refused:
        print(f"not raised (give --reason): {line}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
