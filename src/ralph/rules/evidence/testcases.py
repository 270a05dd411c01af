"""A test file read as its test cases, assertions and skip markers, per language (pure).

Python is parsed (`ast`): a case is a `test*` function or method, with its decorators (a
parametrize list holds expected values). The other languages are read by their case headers
(`it("…")`, `func TestX`, `#[test] fn x`, `@Test void x`, `it "…" do`, `exports[...]`): a case
runs from its header to the next one. Lines are compared without indentation and comments.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ralph.rules.evidence.testfiles import language


@dataclass(frozen=True)
class Case:
    name: str  # unique within its file ("test_add", "Calc.test_add", "adds#2")
    lines: tuple[str, ...]  # its lines, normalized; comment and blank lines left out


@dataclass(frozen=True)
class TestText:
    cases: tuple[Case, ...]
    markers: tuple[str, ...]  # lines that skip, xfail, ignore or single out tests
    lines: tuple[str, ...]  # every line, normalized (files without cases compare these)


# what skips a test (or runs only some), per language
MARKERS = {
    "python": r"\bmark\.(?:skip|skipif|xfail)\b|\bunittest\.skip\w*|@skip\w*\b|"
    r"\bexpectedFailure\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(|\bskipTest\s*\(|"
    r"\bSkipTest\b|\b__unittest_skip__\b",
    # `test.skip(`, `it.concurrent.only(`, `xit(`; tape's and node's `t.skip()` / `t.todo()`
    # and mocha's `this.skip()`; the options of node --test, tape and ava (`{ skip: true }`)
    "js": r"\b(?:it|test|describe|suite|context|bench|specify)(?:\.\w+)*\."
    r"(?:skip|only|todo|fails|failing|skipIf|runIf)\b|"
    r"\b(?:xit|xtest|xdescribe|fit|fdescribe|xcontext|xspecify)\s*\(|"
    r"\b(?:t|tt|st|ctx|context|this)\.(?:skip|todo)\s*\(|"
    r"\b(?:skip|only)\s*:\s*true\b|"  # a todo app's `{ todo: 'milk' }` is data
    r"\b(?:it|test|describe|suite|specify)\s*\([^){]*\{[^)]*?\b(?:skip|todo|only)\s*:"
    r"(?!\s*(?:false|null|undefined|0)\b)",
    "go": r"\bt\.Skip(?:f|Now)?\s*\(|\bb\.Skip(?:f|Now)?\s*\(|\btesting\.Short\s*\(",
    "rust": r"#\[\s*ignore\b|#\[\s*cfg_attr\([^]]*ignore",
    "java": r"@(?:Disabled\w*|Ignore|EnabledIf\w*|DisabledIf\w*)\b|"
    r"\bassume(?:True|False|That)\s*\(",
    "ruby": r"^\s*(?:skip|pending|xit|xdescribe|xcontext|xspecify)\b|:skip\b|\bskip:\s",
}
_HEADERS = {
    "js": r"^\s*(?:it|test|specify|xit|xtest|fit)(?:\.\w+)*(?:\([^)]*\))?\s*\(\s*"
    r"(?P<q>['\"`])(?P<name>.*?)(?P=q)",
    "go": r"^func\s+(?P<name>(?:Test|Example|Fuzz)\w*)\s*\(",
    "rust": r"^\s*(?:pub\s+)?(?:async\s+)?fn\s+(?P<name>\w+)\s*\(",
    "java": r"^\s*(?:(?:public|protected|private|static|final|void|fun)\s+)+(?P<name>\w+)\s*\(",
    "ruby": r"^\s*(?:it|specify|test|scenario|example|xit)\b\s*\(?\s*(?P<q>['\"])(?P<name>.*?)"
    r"(?P=q)|^\s*def\s+(?P<def>test_\w+)",
    "snap": r"^exports\[`(?P<name>.*?)`\]",
}
# a Rust or Java case header counts only under its attribute (the lines before it)
_ATTRIBUTES = {"rust": r"#\[(?:\w+::)*test\b", "java": r"@(?:\w+\.)*(?:Test|\w+Test)\b"}
_COMMENT = re.compile(r"^(?:#(?!\[)|//|/\*|\*|<!--|--)")
_SPACE = re.compile(r"\s+")
# closing brackets and `end`: where a case ends is read loosely, these carry no meaning
_CLOSING = re.compile(r"^(?:[)\]};,]+|end)$")


def normalize(line: str) -> str:
    return _SPACE.sub(" ", line.strip())


def read_tests(path: str, text: str) -> TestText:
    """The cases, markers and lines of the test file `path`."""
    lang = language(path)
    raw = text.splitlines()
    cases: tuple[Case, ...] = ()
    if lang == "python":
        cases = _python_cases(text, raw)
    elif lang in _HEADERS:
        cases = _header_cases(lang, raw)
    marker = re.compile(MARKERS[lang], re.M) if lang in MARKERS else None
    markers = tuple(normalize(r) for r in raw if marker is not None and marker.search(r))
    return TestText(cases, markers, _meaningful(raw))


def _meaningful(raw: list[str]) -> tuple[str, ...]:
    out = (normalize(r) for r in raw)
    return tuple(
        line for line in out if line and not _COMMENT.match(line) and not _CLOSING.match(line)
    )


def _python_cases(text: str, raw: list[str]) -> tuple[Case, ...]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()  # unreadable: compared line by line, like a file without cases
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_py_test(node.name):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _is_py_test(
                    item.name
                ):
                    found.append((f"{node.name}.{item.name}", item))
    cases: list[Case] = []
    for name, node in found:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        cases.append(Case(name, _meaningful(raw[first - 1 : end])))
    return _unique(cases)


def _is_py_test(name: str) -> bool:
    return name.startswith("test")


def _header_cases(lang: str, raw: list[str]) -> tuple[Case, ...]:
    header = re.compile(_HEADERS[lang])
    attribute = re.compile(_ATTRIBUTES[lang]) if lang in _ATTRIBUTES else None
    starts: list[tuple[int, str]] = []
    for i, line in enumerate(raw):
        m = header.search(line)
        if m is None:
            continue
        start = i if attribute is None else _attributed(raw, i, attribute)
        if start is None:
            continue
        name = next(g for g in (m.groupdict().get(k) for k in ("name", "def")) if g)
        starts.append((start, name))
    cases = []
    for n, (start, name) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(raw)
        cases.append(Case(name, _meaningful(raw[start:end])))
    return _unique(cases)


def _attributed(raw: list[str], i: int, attribute: re.Pattern[str]) -> int | None:
    """The first line of the attributes right above line `i` when one marks a test, else None."""
    start, marked = i, False
    for k in range(i - 1, -1, -1):
        line = raw[k].strip()
        if line.startswith(("#[", "@")):
            start, marked = k, marked or attribute.search(line) is not None
        elif line and not _COMMENT.match(line):
            break
    return start if marked else None


def _unique(cases: list[Case]) -> tuple[Case, ...]:
    """Repeated names (the same `it("works")` in two describe blocks) numbered: name#2."""
    seen: dict[str, int] = {}
    out = []
    for case in cases:
        seen[case.name] = seen.get(case.name, 0) + 1
        n = seen[case.name]
        out.append(case if n == 1 else Case(f"{case.name}#{n}", case.lines))
    return tuple(out)
