"""The checks and roles a spec's front matter may declare, and their settings (Pydantic models).

specs/frontmatter.py reads the front matter into a SpecMeta that holds them.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Literal, Protocol, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
)

ACCEPTANCE_PLACEHOLDER = "{{acceptance_criteria}}"

Seconds = Annotated[StrictInt | StrictFloat, Field(gt=0)]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class StrictModel(BaseModel):
    """Unknown keys refused, values never coerced."""

    # strict: YAML reads `yes` as true and `010` as 8; a lax model would quietly accept both
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def relative_dir(value: str) -> str:
    """A working directory inside the project: relative and never climbing out of it."""
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute():
        raise ValueError("must be relative to the project root")
    if ".." in re.split(r"[\\/]", value):
        raise ValueError("must stay inside the project (no '..')")
    return value


def relative_file(value: str | None) -> str | None:
    return None if value is None else relative_dir(value)


class ExternalConfig(StrictModel):
    """Run a command; judge its exit code and output (the seed's keys)."""

    command: NonEmpty
    success_exit_code: StrictInt = 0
    output_contains: StrictStr | None = None
    output_not_contains: StrictStr | None = None
    timeout: Seconds = 300
    working_dir: StrictStr = "."
    report: NonEmpty | None = None  # a JUnit XML file the command writes (its counts are read)

    _dir = field_validator("working_dir")(relative_dir)
    _report = field_validator("report")(relative_file)


class TestCommandSource(Protocol):
    """What says a test command: a spec's front matter, or ralph.yaml."""

    @property
    def test_command(self) -> str | None: ...
    @property
    def test_timeout(self) -> float: ...


def command_check(source: TestCommandSource) -> ExternalConfig | None:
    """The one way a test command becomes a check: its command, its timeout and, where the
    source names one, the JUnit report it writes; None when the source has no command."""
    if not source.test_command:
        return None
    report: str | None = getattr(source, "test_report", None)
    return ExternalConfig(command=source.test_command, timeout=source.test_timeout, report=report)


class SemanticConfig(StrictModel):
    """Negative patterns reject first; then an agent judges `check_for`."""

    # a list, or the string "{{acceptance_criteria}}" (the spec's acceptance criteria)
    check_for: list[NonEmpty] | NonEmpty = Field(default_factory=list)
    negative_patterns: list[NonEmpty] = Field(default_factory=list)
    model: StrictStr | None = None  # passed to the judge as RALPH_JUDGE_MODEL
    timeout: Seconds = 300


class StringMatchConfig(StrictModel):
    """`<promise>X</promise>` in the agent's own output (an echo of the prompt never counts)."""

    promise: NonEmpty | None = None  # role criteria give theirs as `promise:`


class RevertConfig(StrictModel):
    """The cases added since the run began: one fails on the old code, all pass now."""

    command: NonEmpty | None = None
    timeout: Seconds = 300  # each of its two runs
    report: NonEmpty | None = None  # the JUnit XML file a runner other than pytest writes

    _report = field_validator("report")(relative_file)


class MultiStageConfig(StrictModel):
    stages: Annotated[list[Stage], Field(min_length=1)]
    require_all: StrictBool = True  # stop at the first failing required stage


class MutationConfig(StrictModel):
    """Mutants of the Python lines changed since the run began, each tested (checks/mutation.py)."""

    command: NonEmpty | None = None  # None: the spec's test_command
    min_score: Annotated[StrictInt | StrictFloat, Field(ge=0, le=1)] = 0.6
    max_mutants: Annotated[StrictInt, Field(ge=1)] = 30
    timeout: Seconds = 300  # the whole check's budget, the unmutated run included


class _CheckBase(StrictModel):
    name: NonEmpty | None = None
    required: StrictBool = True  # False: a failure only warns
    cache: StrictBool = True  # False: re-run even when the tree is unchanged


class ExternalCheck(_CheckBase):
    method: Literal["external"]
    config: ExternalConfig


class SemanticCheck(_CheckBase):
    method: Literal["semantic"]
    config: SemanticConfig = Field(default_factory=SemanticConfig)


class StringMatchCheck(_CheckBase):
    method: Literal["string_match"]
    config: StringMatchConfig


class MultiStageCheck(_CheckBase):
    method: Literal["multi_stage"]
    config: MultiStageConfig


class MutationCheck(_CheckBase):
    method: Literal["mutation"]
    config: MutationConfig = Field(default_factory=MutationConfig)


class RevertCheck(_CheckBase):
    method: Literal["revert"]
    config: RevertConfig = Field(default_factory=RevertConfig)


Stage = Annotated[ExternalCheck | SemanticCheck | StringMatchCheck, Field(discriminator="method")]
OwnCheck = (
    ExternalCheck | SemanticCheck | StringMatchCheck | MultiStageCheck | MutationCheck | RevertCheck
)
MultiStageConfig.model_rebuild()
# ralph's own check methods; a spec may name another a plugin registers (specs/plugincheck.py)
OWN_METHODS: tuple[str, ...] = tuple(
    get_args(m.model_fields["method"].annotation)[0] for m in get_args(OwnCheck)
)


class _RoleBase(StrictModel):
    """The seed's CompletionCriteria: a promise, what it means, how it is verified, a cap."""

    promise: NonEmpty
    description: NonEmpty
    max_iterations: Annotated[StrictInt, Field(ge=1)] | None = None


class ExternalRole(_RoleBase):
    verification_method: Literal["external"]
    verification_config: ExternalConfig


class SemanticRole(_RoleBase):
    verification_method: Literal["semantic"]
    verification_config: SemanticConfig = Field(default_factory=SemanticConfig)


class StringMatchRole(_RoleBase):
    verification_method: Literal["string_match"] = "string_match"
    verification_config: StringMatchConfig = Field(default_factory=StringMatchConfig)


class MultiStageRole(_RoleBase):
    verification_method: Literal["multi_stage"]
    verification_config: MultiStageConfig


Role = Annotated[
    ExternalRole | SemanticRole | StringMatchRole | MultiStageRole,
    Field(discriminator="verification_method"),
]
AnyRole = ExternalRole | SemanticRole | StringMatchRole | MultiStageRole
