"""checks/context.py: what every check method is given; the name a check is reported by."""

from __future__ import annotations

from ralph.checks.context import ROLES_BY_MODE, check_name
from ralph.specs.frontmatter import parse_front_matter


def test_a_check_is_named_by_its_name_else_its_method_numbered_when_repeated() -> None:
    text = (
        "---\nchecks:\n"
        "  - {name: lint, method: external, config: {command: a}}\n"
        "  - {method: external, config: {command: b}}\n"
        "  - {method: external, config: {command: c}}\n"
        "  - {method: semantic}\n---\n# a\n"
    )
    meta = parse_front_matter("a.spec.md", text)
    assert meta is not None
    names = [check_name(c, meta) for c in meta.checks]
    assert names == ["lint", "external-2", "external-3", "semantic"]


def test_the_roles_that_gate_each_mode() -> None:
    assert ROLES_BY_MODE["IMPLEMENT"] == ("coder", "tester", "qa")
    assert ROLES_BY_MODE["REVIEW"] == ("reviewer", "tester", "qa")
    assert "VERIFY" not in ROLES_BY_MODE  # the final verification asks for no promise
