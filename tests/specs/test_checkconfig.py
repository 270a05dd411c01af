"""specs/checkconfig.py: the checks and roles a spec may declare, strict about every value.

How a refusal reads (file, key, one line) is tests/specs/test_frontmatter.py's; here the
models' own rules, met directly."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from ralph.specs.checkconfig import (
    ExternalConfig,
    MultiStageCheck,
    MutationConfig,
    Role,
    SemanticCheck,
    StringMatchRole,
    command_check,
    relative_dir,
    relative_file,
)
from ralph.specs.frontmatter import SpecMeta
from ralph.specs.plugincheck import Check
from ralph.store.person.config import RalphConfig

CHECK: TypeAdapter[Any] = TypeAdapter(Check)
ROLE: TypeAdapter[Any] = TypeAdapter(Role)


@pytest.mark.parametrize("inside", ["src", "./src", "a/b", "a..b", "..hidden", "."])
def test_a_working_directory_inside_the_project_is_kept(inside: str) -> None:
    assert relative_dir(inside) == inside


@pytest.mark.parametrize(
    ("outside", "said"),
    [
        ("/etc", "relative"),
        ("C:\\Windows", "relative"),
        ("\\\\server\\share", "relative"),
        ("..", "no '..'"),
        ("src/../..", "no '..'"),
        ("src\\..\\..\\etc", "no '..'"),
    ],
)
def test_a_working_directory_out_of_the_project_is_refused(outside: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        relative_dir(outside)


def test_a_report_file_is_held_to_the_same_rule_and_may_be_unset() -> None:
    assert relative_file(None) is None
    with pytest.raises(ValidationError, match="report"):
        ExternalConfig(command="make", report="/tmp/forged.xml")


@pytest.mark.parametrize(
    "check",
    [
        {"method": "external", "config": {"command": "x", "timeout": "60"}},  # no coercion
        {"method": "external", "config": {"command": "x"}, "required": "yes"},
        {"method": "external", "config": {"command": ""}},
        {"method": "external", "config": {"command": "x", "tiemout": 5}},  # unknown key
        {"method": "semantic", "config": {"check_for": [""]}},
        {"method": "mutation", "config": {"min_score": 1.5}},
        {"method": "mutation", "config": {"max_mutants": 0}},
        {"method": "revert", "config": {"timeout": 0}},
        {"method": "multi_stage", "config": {"stages": []}},
        # a stage is external, semantic or string_match: no stage of stages, no mutation
        {
            "method": "multi_stage",
            "config": {"stages": [{"method": "multi_stage", "config": {"stages": []}}]},
        },
        {"method": "multi_stage", "config": {"stages": [{"method": "mutation"}]}},
    ],
)
def test_a_check_ralph_would_have_to_guess_at_is_refused(check: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        CHECK.validate_python(check)


def test_a_checks_defaults_are_the_documented_ones() -> None:
    semantic = CHECK.validate_python({"method": "semantic"})
    assert isinstance(semantic, SemanticCheck)
    assert semantic.required and semantic.cache and semantic.config.timeout == 300
    mutation = CHECK.validate_python({"method": "mutation"}).config
    assert mutation == MutationConfig(command=None, min_score=0.6, max_mutants=30, timeout=300)
    stages = {"stages": [{"method": "external", "config": {"command": "pytest"}}]}
    multi = CHECK.validate_python({"method": "multi_stage", "config": stages})
    assert isinstance(multi, MultiStageCheck) and multi.config.require_all


def test_a_declared_check_cannot_change_after_it_is_read() -> None:
    check = CHECK.validate_python({"method": "external", "config": {"command": "x"}})
    with pytest.raises(ValidationError):
        check.required = False


def test_a_role_verifies_by_its_promise_unless_it_says_otherwise() -> None:
    # the default method is filled in by specs/frontmatter.py before the union is told apart
    role = StringMatchRole(promise="P", description="d")
    assert role.verification_method == "string_match" and role.verification_config.promise is None
    with pytest.raises(ValidationError):
        StringMatchRole(promise="P", description="d", max_iterations=0)
    external = {"promise": "P", "description": "d", "verification_method": "external"}
    with pytest.raises(ValidationError, match="verification_config"):  # its command is needed
        ROLE.validate_python(external)
    role = ROLE.validate_python({**external, "verification_config": {"command": "make"}})
    assert role.verification_config.command == "make"


def test_a_test_command_becomes_one_check_from_the_front_matter_or_ralph_yaml() -> None:
    """One way for every site (the gate, the sealed run, the final verification): the
    command, its timeout and the report only a front matter names."""
    meta = SpecMeta(test_command="pytest -q", test_timeout=12, test_report="out.xml")
    assert command_check(meta) == ExternalConfig(command="pytest -q", timeout=12, report="out.xml")
    config = RalphConfig(test_command="make test", test_timeout=30.0)
    assert command_check(config) == ExternalConfig(command="make test", timeout=30.0)
    assert command_check(SpecMeta()) is None
    assert command_check(RalphConfig()) is None
