"""checks/requirements.py: what the prompt tells the agent its DONE must pass."""

from __future__ import annotations

from ralph.checks.requirements import requirements
from ralph.specs.frontmatter import SpecMeta, parse_front_matter


def meta(front: str) -> SpecMeta:
    found = parse_front_matter("a.spec.md", f"---\n{front}\n---\n# a\n")
    assert found is not None
    return found


def test_the_checks_a_done_must_pass_are_listed() -> None:
    front = (
        "outcome: it adds\nacceptance_criteria: [sums]\ntest_command: pytest -q\n"
        "verification: strict\n"
        "checks:\n  - {name: lint, method: external, required: false, config: {command: ruff}}\n"
        "  - {method: revert, config: {command: pytest}}\n"
        "coder: {promise: BUILT, description: it builds}\n"
        "reviewer: {promise: OK, description: reviewed}"
    )
    text = requirements(meta(front), None, "IMPLEMENT", None)
    assert text.startswith("## What your DONE must pass\n")
    for line in (
        "- Outcome: it adds",
        "- Acceptance criterion: sums",
        "- Test command (must exit 0): `pytest -q`",
        "- Check lint (external): ruff (optional: only warns)",
        "- Check revert (revert): at least one test case you add must fail",
        "- Strict tier:",
        "print `<promise>BUILT</promise>`",
    ):
        assert line in text
    assert "<promise>OK</promise>" not in text  # the reviewer's promise is for REVIEW
    assert "<promise>OK</promise>" in requirements(meta(front), None, "REVIEW", None)


def test_an_invalid_front_matter_and_the_last_refusal_are_said() -> None:
    text = requirements(None, "checks[0]: Field required", "IMPLEMENT", "- tests: exit code 1")
    assert "The front matter of this spec is invalid (checks[0]: Field required)" in text
    assert "### Your last DONE on this spec was refused\n- tests: exit code 1" in text


def test_nothing_to_say_is_no_section() -> None:
    assert requirements(None, None, "IMPLEMENT", None) == ""
    assert requirements(meta("task: words only"), None, "IMPLEMENT", None) == ""
