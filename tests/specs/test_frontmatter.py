"""Spec front matter: the keys it accepts, and one clear line naming file and key otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.errors import SpecError
from ralph.specs.checkconfig import ExternalRole, MultiStageCheck, SemanticRole, StringMatchRole
from ralph.specs.frontmatter import body_line_offset, parse_front_matter, split_front_matter

FULL = """\
---
task: Implement JWT authentication
outcome: All API endpoints require valid JWT tokens
acceptance_criteria:
  - JWT middleware validates tokens
completion_criteria:
  - Invalid tokens return 401
test_command: make test
test_timeout: 600
max_iterations: 25
verification: strict
parallel_checks: true
checks:
  - name: lint
    method: external
    config:
      command: ruff check src/
      success_exit_code: 0
      output_contains: All checks passed
      output_not_contains: error
      timeout: 60
      working_dir: src
  - method: string_match
    config: {promise: AUTH_DONE}
  - method: semantic
    required: false
    config:
      check_for: "{{acceptance_criteria}}"
      negative_patterns: [TODO, FIXME]
      model: haiku
  - name: qa
    method: multi_stage
    config:
      require_all: true
      stages:
        - {name: unit, method: external, config: {command: pytest}, required: true}
        - {name: todo, method: semantic, config: {negative_patterns: [TODO]}}
coder:
  promise: AUTH_IMPLEMENTED
  description: code complete
  verification_method: external
  verification_config: {command: "test -f src/auth.py"}
  max_iterations: 15
reviewer:
  promise: AUTH_REVIEWED
  description: reviewed
  verification_method: semantic
  verification_config: {check_for: [no hardcoded secrets]}
  max_iterations: 5
tester:
  promise: TESTS_PASS
  description: tests pass
qa:
  promise: QA_DONE
  description: qa
  verification_method: multi_stage
  verification_config:
    stages: [{name: all, method: external, config: {command: pytest}}]
---
# Auth

- [ ] a box
"""


def test_every_key_of_the_seeds_is_accepted() -> None:
    meta = parse_front_matter("specs/auth.spec.md", FULL)
    assert meta is not None
    assert meta.criteria == ("JWT middleware validates tokens", "Invalid tokens return 401")
    assert (meta.test_command, meta.test_timeout, meta.max_iterations) == ("make test", 600, 25)
    assert meta.verification == "strict" and meta.parallel_checks
    assert [c.method for c in meta.checks] == [
        "external",
        "string_match",
        "semantic",
        "multi_stage",
    ]
    qa = meta.checks[3]
    assert isinstance(qa, MultiStageCheck) and [s.required for s in qa.config.stages] == [
        True,
        True,
    ]
    assert isinstance(meta.coder, ExternalRole) and meta.coder.max_iterations == 15
    assert isinstance(meta.reviewer, SemanticRole)
    assert isinstance(meta.tester, StringMatchRole)  # string_match is the default method
    assert meta.gates_done


def test_no_front_matter_means_none_and_the_text_is_untouched() -> None:
    text = "# plain spec\n\n---\nnot: front matter (not at the top)\n---\n"
    assert parse_front_matter("PROMPT.md", text) is None
    assert split_front_matter(text) == (None, text)
    assert body_line_offset(text) == 0


def test_front_matter_split_and_body_offset() -> None:
    text = "\ufeff---\r\na: 1\r\n...\r\n# body\n"
    assert split_front_matter(text) == ("a: 1\r\n", "# body\n")
    assert body_line_offset("---\nx: 1\n---\n# b\n") == 3
    empty = parse_front_matter("s.spec.md", "---\n---\n# b\n")
    assert empty is not None and not empty.gates_done


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("tset_command: x\n", "specs/a.spec.md: front matter: tset_command: unknown key"),
        ("max_iterations: 0\n", "specs/a.spec.md: front matter: max_iterations: Input should be"),
        ("max_iterations: yes\n", "specs/a.spec.md: front matter: max_iterations: Input should be"),
        ("verification: paranoid\n", "specs/a.spec.md: front matter: verification: Input should"),
        ("checks: [{method: external}]\n", "front matter: checks[0].config: Field required"),
        (
            "checks: [{method: external, config: {command: x, timeout: -1}}]\n",
            "front matter: checks[0].config.timeout: Input should be greater than 0",
        ),
        (
            "checks: [{method: external, config: {command: x, working_dir: /etc}}]\n",
            "checks[0].config.working_dir: Value error, must be relative to the project root",
        ),
        (
            "checks: [{method: magic}]\n",
            "front matter: checks[0].method: unknown check method 'magic'",
        ),
        (
            "checks: [{method: multi_stage, config: {stages: []}}]\n",
            "checks[0].config.stages: List should have at least 1 item",
        ),
        ("coder: {promise: P}\n", "front matter: coder.description: Field required"),
        ("qa: {promise: P, description: d, max_iterations: 0}\n", "qa.max_iterations"),
        ("- a list\n", "specs/a.spec.md: front matter must be a mapping"),
        ("a: [unclosed\n", "specs/a.spec.md: line 2: front matter is not valid YAML"),
    ],
)
def test_bad_front_matter_is_one_line_naming_file_and_key(front: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_front_matter("specs/a.spec.md", f"---\n{front}---\n# s\n")
    assert message in caught.value.message
    assert "\n" not in caught.value.message
    assert caught.value.hint and "docs/reference/front-matter.md" in caught.value.hint


def test_unclosed_front_matter_is_an_error() -> None:
    with pytest.raises(SpecError, match="never closed"):
        parse_front_matter("PROMPT.md", "---\ntest_command: x\n# no closing line\n")


def test_the_documented_example_specs_are_valid() -> None:
    repo = Path(__file__).resolve().parents[2]
    page = (repo / "docs" / "explanation" / "checks.md").read_text(encoding="utf-8")
    example = page.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    meta = parse_front_matter("docs/explanation/checks.md", example + "\n")
    assert meta is not None
    assert [c.name for c in meta.checks] == ["lint", "no-todos", "qa"]
    assert meta.coder is not None and meta.coder.max_iterations == 15
    readme = (repo / "README.md").read_text(encoding="utf-8")
    example = readme.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    meta = parse_front_matter("README.md", example + "\n")
    assert meta is not None and meta.test_command == "pytest -q tests/test_auth.py"
    assert [c.name for c in meta.checks] == ["lint"]


def test_the_verification_phase_seeds_own_front_matter_is_accepted() -> None:
    seed = Path(__file__).resolve().parents[2] / ".." / "shared" / "mission" / "seeds"
    path = seed / "verification-phase-task.md"
    if not path.exists():
        pytest.skip("../shared is not beside the repository")
    meta = parse_front_matter("RALPH_TASK.md", path.read_text(encoding="utf-8"))
    assert meta is not None
    assert (meta.task, meta.test_command, meta.max_iterations) == (
        "Add verification phase after RALPH COMPLETE",
        "make test",
        25,
    )
    assert len(meta.criteria) == 13
