"""Mutants of Python source (pure): small changes to the code on given lines, each a copy of the
file with one edit at a node's exact offsets, so every other byte stays as it was.

The operators: comparison (`==` <-> `!=`, `<` <-> `>=`, `>` <-> `<=`, `is` <-> `is not`, `in`
<-> `not in`), arithmetic (`+` <-> `-`, `*` <-> `/`, `//` -> `/`, `%` -> `*`, and their
augmented forms), constants (n -> n+1, 0 <-> 1, True <-> False, a string -> another), boolean
negation (`not x` -> `x`, `if c:` -> `if not (c):`, `and` <-> `or`) and return values (`return x`
-> `return None`). A mutant that does not parse, or parses to the same tree, is no mutant
(`changes_code`: asked only of the mutants chosen to run, since each asks for a parse).

No mutation tool is used (docs/explanation/mutation-check.md says why): mutmut and cosmic-ray
run the tests themselves, in a folder and with timeouts of their own; ralph chooses the lines
(the agent's changes) and runs its own command in its clean room, under its sandbox and budget.
"""

from __future__ import annotations

import ast
import bisect
import math
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

SHOWN = 60  # characters of code a mutant's description shows on each side

_COMPARE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
            "is": "is not", "is not": "is", "in": "not in", "not in": "in"}  # fmt: skip
_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "*"}
_AUG = {f"{a}=": f"{b}=" for a, b in _ARITH.items()}
_BOOL = {"and": "or", "or": "and"}
_BARE_CR = re.compile(r"\r(?!\n)")
_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+\Z", re.S)


@dataclass(frozen=True)
class Mutant:
    path: str  # root-relative posix path
    line: int  # 1-based, where the edit starts
    start: int  # the edit's character offsets in the source
    end: int
    text: str  # what replaces source[start:end]
    before: str  # the code around the edit, as it was (for the refusal)
    after: str  # and as the mutant has it

    def apply(self, source: str) -> str:
        return source[: self.start] + self.text + source[self.end :]

    def describe(self) -> str:
        return f"{self.path}:{self.line} `{self.before}` → `{self.after}`"


def mutants(path: str, source: str, lines: set[int]) -> list[Mutant]:
    """Every candidate mutant of `source` whose edit starts on one of `lines`, in source order;
    none when the file does not parse (nothing there runs for the tests to judge), is nested
    too deep to read, or ends lines with a bare CR (tokenize and ast count its lines apart)."""
    if _BARE_CR.search(source):
        return []
    try:
        return _mutants(path, source, lines)
    except (SyntaxError, ValueError, tokenize.TokenError, RecursionError, MemoryError):
        return []


def _mutants(path: str, source: str, lines: set[int]) -> list[Mutant]:
    tree = ast.parse(source)
    starts = _line_starts(source)
    out: dict[tuple[int, int, str], Mutant] = {}
    for start, end, text, (lo, hi) in _Finder(source, starts, _tokens(source)).edits(tree):
        line = bisect.bisect_right(starts, start) - 1
        if line in lines and (start, end, text) not in out:
            after = source[lo:start] + text + source[end:hi]
            shown = _short(source[lo:hi]), _short(after)
            out[start, end, text] = Mutant(path, line, start, end, text, *shown)
    return [out[k] for k in sorted(out)]


def tree_of(source: str) -> str | None:
    """The source's syntax tree as text (to compare a mutant's with), None when unreadable."""
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def changes_code(source: str, mutant: Mutant, original: str | None = None) -> bool:
    """Does the mutant parse, to a tree other than the source's (`original`: its tree_of,
    when known)? Asked of the chosen ones only: each asks for a parse."""
    mutated = tree_of(mutant.apply(source))
    return mutated is not None and mutated != (original or tree_of(source))


def _short(code: str) -> str:
    one = " ".join(code.split())
    return one if len(one) <= SHOWN else one[: SHOWN - 1] + "…"


def _lines(source: str) -> list[str]:
    """The lines as Python reads them (str.splitlines also splits at form feeds and more)."""
    return _LINE.findall(source)


def _line_starts(source: str) -> list[int]:
    starts, at = [0, 0], 0  # lines are 1-based
    for line in _lines(source):
        at += len(line)
        starts.append(at)
    return starts


@dataclass(frozen=True)
class _Tok:
    start: int
    end: int
    string: str


def _tokens(source: str) -> list[_Tok]:
    """The operator and keyword tokens, at character offsets."""
    starts = _line_starts(source)
    out: list[_Tok] = []
    for tok in tokenize.generate_tokens(iter(_lines(source)).__next__):
        if tok.type in (tokenize.OP, tokenize.NAME):
            (r0, c0), (r1, c1) = tok.start, tok.end
            out.append(_Tok(starts[r0] + c0, starts[r1] + c1, tok.string))
    return out


Edit = tuple[int, int, str, tuple[int, int]]  # start, end, replacement, the span shown


class _Finder:
    def __init__(self, source: str, starts: list[int], tokens: list[_Tok]) -> None:
        self.source, self.starts, self.tokens = source, starts, tokens
        self.token_starts = [t.start for t in tokens]
        self.encoded = [b"", *(line.encode() for line in _lines(source))]

    def at(self, lineno: int, col: int) -> int:
        """A character offset from ast's (line, UTF-8 byte column)."""
        line = self.encoded[lineno] if lineno < len(self.encoded) else b""
        return self.starts[lineno] + len(line[:col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        lineno, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        end_line = lineno if end_line is None else end_line
        end_col = col if end_col is None else end_col
        return self.at(lineno, col), self.at(end_line, end_col)

    def after(self, lo: int) -> int:
        """The index of the first token that starts at or after `lo`."""
        return bisect.bisect_left(self.token_starts, lo)

    def between(self, lo: int, hi: int) -> list[_Tok]:
        """The tokens within [lo, hi), parentheses left out."""
        out: list[_Tok] = []
        for tok in self.tokens[self.after(lo) :]:
            if tok.end > hi:
                break
            if tok.string not in ("(", ")"):
                out.append(tok)
        return out

    def op_edit(
        self, lo: int, hi: int, table: dict[str, str], span: tuple[int, int]
    ) -> Iterator[Edit]:
        """The operator between two operands (`not in` and `is not` are two tokens)."""
        toks = self.between(lo, hi)
        if toks:
            op = " ".join(t.string for t in toks)
            if op in table:
                yield toks[0].start, toks[-1].end, table[op], span

    def edits(self, tree: ast.AST) -> Iterator[Edit]:
        docstrings = {
            id(body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and (body := node.body)
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        }
        in_fstring = {
            id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if id(node) in in_fstring or id(node) in docstrings:
                continue
            yield from self.node_edits(node)

    def node_edits(self, node: ast.AST) -> Iterator[Edit]:
        if isinstance(node, ast.Compare):
            span, left = self.span(node), node.left
            for right in node.comparators:
                yield from self.op_edit(self.span(left)[1], self.span(right)[0], _COMPARE, span)
                left = right
        elif isinstance(node, ast.BinOp):
            span = self.span(node)
            yield from self.op_edit(self.span(node.left)[1], self.span(node.right)[0], _ARITH, span)
        elif isinstance(node, ast.AugAssign):
            span = self.span(node)
            yield from self.op_edit(self.span(node.target)[1], self.span(node.value)[0], _AUG, span)
        elif isinstance(node, ast.BoolOp):
            span = self.span(node)
            yield from self.op_edit(
                self.span(node.values[0])[1], self.span(node.values[1])[0], _BOOL, span
            )
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            lo, hi = self.span(node)
            rest = self.after(lo + 1)  # `not` and the blanks after it go; the operand stays
            if rest < len(self.tokens) and self.tokens[rest].start < hi:
                yield lo, self.tokens[rest].start, "", (lo, hi)
        elif isinstance(node, ast.If | ast.While):
            lo, hi = self.span(node.test)
            yield lo, hi, f"not ({self.source[lo:hi]})", (lo, hi)
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                lo, hi = self.span(value)
                yield lo, hi, "None", self.span(node)
        elif isinstance(node, ast.Constant):
            new = _constant(node.value)
            if new is not None:
                lo, hi = self.span(node)
                yield lo, hi, new, (lo, hi)


def _constant(value: object) -> str | None:
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, int):
        return {0: "1", 1: "0"}.get(value, repr(value + 1))
    if isinstance(value, float):  # 1e999 is inf: its repr is no literal
        return repr(value + 1.0) if math.isfinite(value) else None
    if isinstance(value, str):
        return repr("XX" + value + "XX") if value else repr("XX")
    return None
