"""ralph's own specs (specs/*.spec.md): every checkbox is ticked and names tests that exist.

A checkbox line (or an indented line that continues it) carries references such as
`tests/rules/counts/test_matrix.py::test_counter_never_exceeds_three`. A reference must name a test
function (or `Class::method`) defined in that file; a `[param-id]` suffix is allowed. A box may
stay unticked only while it names a test marked `xfail(reason="BUG: ...", strict=True)`: the
known bug. Once the bug is fixed, that test passes, strict xfail fails the suite, the marker is
removed, and this file then requires the box to be ticked.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from ralph.specs.discovery import find_spec_paths

REPO = Path(__file__).resolve().parents[1]
OWN_SPECS = (
    "specs/agents.spec.md",
    "specs/engine.spec.md",
    "specs/headless-and-operator.spec.md",
    "specs/multi-spec-mode.spec.md",
    "specs/verification-counter.spec.md",
    "specs/completion-criteria.spec.md",
    "specs/agent-pool.spec.md",
    "specs/verification-phase.spec.md",
    "specs/verification-system.spec.md",
)
# One checkbox per seed checkbox: the project's spec may add, never drop.
SEED_CHECKBOXES = {
    "specs/verification-counter.spec.md": 10,
    "specs/multi-spec-mode.spec.md": 54,
    # the seed has no checkboxes: one box per requirement, translated (see the spec's intro)
    "specs/completion-criteria.spec.md": 31,
    "specs/verification-phase.spec.md": 13,
    "specs/verification-system.spec.md": 39,
}
CHECKBOX = re.compile(r"^(?P<indent>\s*)[-*] \[(?P<mark>[ xX])\] (?P<text>.*)$")
REFERENCE = re.compile(r"`(?P<file>tests/[^`:\s]+\.py)::(?P<name>[^`\s]+)`")


@dataclass(frozen=True)
class Checkbox:
    line: int
    ticked: bool
    text: str  # the checkbox line and its continuation lines

    @property
    def references(self) -> list[tuple[str, str]]:
        return [(m["file"], m["name"]) for m in REFERENCE.finditer(self.text)]


@dataclass(frozen=True)
class FoundTest:
    known_bug: bool  # marked xfail(strict=True) with a reason starting "BUG:"


def checkboxes(text: str) -> list[Checkbox]:
    """Every checkbox item, with the indented non-checkbox lines that follow it."""
    found: list[Checkbox] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = CHECKBOX.match(line)
        if match is None:
            continue
        indent = len(match["indent"])
        body = [match["text"]]
        for follow in lines[i + 1 :]:
            if not follow.strip() or CHECKBOX.match(follow):
                break
            if len(follow) - len(follow.lstrip()) <= indent:
                break
            body.append(follow.strip())
        found.append(Checkbox(i + 1, match["mark"] != " ", " ".join(body)))
    return found


def _is_known_bug(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    func = decorator.func
    if not (isinstance(func, ast.Attribute) and func.attr == "xfail"):
        return False
    keywords = {k.arg: k.value for k in decorator.keywords}
    strict, reason = keywords.get("strict"), keywords.get("reason")
    return (
        isinstance(strict, ast.Constant)
        and strict.value is True
        and isinstance(reason, ast.Constant)
        and isinstance(reason.value, str)
        and reason.value.startswith("BUG:")
    )


@cache
def defined_tests(path: Path) -> dict[str, FoundTest]:
    """Test functions and `Class::method`s of a test file, by the name pytest gives them."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[str, FoundTest] = {}

    def add(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef, marks: list[ast.expr]) -> None:
        if node.name.startswith("test"):
            found[name] = FoundTest(any(_is_known_bug(d) for d in [*marks, *node.decorator_list]))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            add(node.name, node, [])
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(f"{node.name}::{item.name}", item, node.decorator_list)
    return found


def resolve(root: Path, file: str, name: str) -> FoundTest | None:
    path = root / file
    if not path.is_file():
        return None
    return defined_tests(path).get(re.sub(r"\[.*\]$", "", name))


def problems(spec_text: str, root: Path = REPO) -> list[str]:
    """Everything wrong with one spec's checkboxes, one message per problem."""
    out: list[str] = []
    boxes = checkboxes(spec_text)
    if not boxes:
        out.append("no checkboxes at all")
    for box in boxes:
        where = f"line {box.line}"
        if not box.references:
            out.append(f"{where}: no `tests/...::name` reference")
        known_bug = False
        for file, name in box.references:
            test = resolve(root, file, name)
            if test is None:
                out.append(f"{where}: {file}::{name} does not exist")
            elif test.known_bug:
                known_bug = True
        if not box.ticked and not known_bug:
            out.append(f"{where}: not ticked, and no known-bug (strict xfail) test named")
        if box.ticked and known_bug:
            out.append(f"{where}: ticked, but it names a test of a known bug")
    return out


# --------------------------------------------------------------------------- the checker


def test_own_specs_exist() -> None:
    for spec in OWN_SPECS:
        assert (REPO / spec).is_file(), spec


@pytest.mark.parametrize("spec", OWN_SPECS)
def test_every_checkbox_is_ticked_and_proven(spec: str) -> None:
    text = (REPO / spec).read_text(encoding="utf-8")
    found = [p for p in problems(text) if "does not exist" not in p]
    assert found == [], f"{spec}:\n" + "\n".join(found)


@pytest.mark.parametrize("spec", OWN_SPECS)
def test_every_reference_names_an_existing_test(spec: str) -> None:
    text = (REPO / spec).read_text(encoding="utf-8")
    found = [p for p in problems(text) if "does not exist" in p]
    assert found == [], f"{spec}:\n" + "\n".join(found)


@pytest.mark.parametrize(("spec", "count"), sorted(SEED_CHECKBOXES.items()))
def test_one_checkbox_per_seed_checkbox(spec: str, count: int) -> None:
    assert len(checkboxes((REPO / spec).read_text(encoding="utf-8"))) >= count


def test_ralph_discovers_its_own_specs() -> None:
    assert set(OWN_SPECS) <= set(find_spec_paths(REPO))


def test_own_specs_front_matter_is_valid() -> None:
    from ralph.checks.gate import validate_front_matter
    from ralph.specs.discovery import discover_specs

    validate_front_matter(discover_specs(REPO))  # raises SpecError naming file and key


def test_coverage_gate_is_part_of_make_test() -> None:
    """The seeds require 100 % line and branch coverage of the verification state machine and
    of the circuit breaker."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: .*\bcoverage\b", makefile, re.M)
    modules = re.search(r"^COVERAGE_100 := (.*)$", makefile, re.M)
    assert modules is not None
    assert {"--cov=ralph.checks.claims", "--cov=ralph.rules.counts.breaker"} <= set(
        modules[1].split()
    )
    recipe = makefile.split("\ncoverage:", 1)[1].split("\n\n", 1)[0]
    assert "--cov-branch" in recipe and "--cov-fail-under=100" in recipe


# --------------------------------------------------------------------------- the checker's checker


def test_checker_rejects_missing_tests_and_accepts_real_ones() -> None:
    good = "- [x] a rule — `tests/rules/counts/test_matrix.py::test_counter_never_exceeds_three`\n"
    assert problems(good) == []
    param = (
        "- [x] a rule — "
        "`tests/rules/counts/test_matrix.py::test_done_with_changes_resets_to_one[2]`\n"
    )
    assert problems(param) == []
    missing = "- [x] a rule — `tests/rules/counts/test_matrix.py::test_there_is_no_such_test`\n"
    assert problems(missing) == [
        "line 1: tests/rules/counts/test_matrix.py::test_there_is_no_such_test does not exist"
    ]
    no_file = "- [x] a rule — `tests/test_nowhere.py::test_x`\n"
    assert "does not exist" in problems(no_file)[0]
    helper = "- [x] a rule — `tests/test_own_specs.py::problems`\n"  # not a test
    assert "does not exist" in problems(helper)[0]


def test_checker_rejects_unticked_and_unreferenced_boxes() -> None:
    assert problems(
        "- [ ] a rule — `tests/rules/counts/test_matrix.py::test_counter_never_exceeds_three`\n"
    )
    assert problems("- [x] a rule with no test\n") == ["line 1: no `tests/...::name` reference"]
    assert problems("# a spec with no checkbox\n") == ["no checkboxes at all"]


def test_checker_reads_continuation_lines_and_nested_boxes() -> None:
    text = (
        "- [x] a parent rule\n"
        "  proven by `tests/rules/counts/test_matrix.py::test_counter_never_exceeds_three`\n"
        "  - [x] a child rule — "
        "`tests/rules/counts/test_matrix.py::test_example_5_selective_propagation`\n"
        "- [x] next rule\n"
    )
    boxes = checkboxes(text)
    assert [(b.line, len(b.references)) for b in boxes] == [(1, 1), (3, 1), (4, 0)]


def test_checker_allows_an_unticked_box_only_for_a_known_bug(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text(
        "import pytest\n"
        "@pytest.mark.xfail(reason='BUG: sorts wrong', strict=True)\n"
        "def test_bug() -> None: ...\n"
        "@pytest.mark.xfail(reason='flaky', strict=False)\n"
        "def test_flaky() -> None: ...\n"
        "class TestGroup:\n"
        "    def test_ok(self) -> None: ...\n"
    )
    assert problems("- [ ] rule — `tests/test_x.py::test_bug`\n", tmp_path) == []
    assert problems("- [x] rule — `tests/test_x.py::TestGroup::test_ok`\n", tmp_path) == []
    assert problems("- [ ] rule — `tests/test_x.py::test_flaky`\n", tmp_path)
    assert problems("- [x] rule — `tests/test_x.py::test_bug`\n", tmp_path) == [
        "line 1: ticked, but it names a test of a known bug"
    ]
