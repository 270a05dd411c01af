"""Spec front matter: YAML between `---` lines at the very top of a spec, validated by Pydantic.

It says what "done" means for that spec beyond the 0/3 -> 3/3 counter: a test command, checks
(string_match, external, semantic, multi_stage), the verification tier, per-spec and per-role
iteration caps. A spec without front matter behaves exactly as before.

`split_front_matter` is cheap and free of heavy imports; YAML and Pydantic are loaded only when a
spec really has front matter (`ralph status` and `--help` never get here).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from ralph.errors import (
    DEEP_YAML,
    SpecError,
    docs_page,
    invalid_value,
    model_keys,
    yaml_problem,
)
from ralph.rules.caps import Caps

FENCE = "---"
HINT = (
    "fix the YAML between the --- lines at the top of the spec (the keys: "
    f"{docs_page('reference/front-matter.md')})"
)
ROLES = ("coder", "reviewer", "tester", "qa")
ACCEPTANCE_PLACEHOLDER = "{{acceptance_criteria}}"
_LOC_TAGS = frozenset({"external", "semantic", "string_match", "multi_stage", "mutation", "revert"})

Seconds = Annotated[StrictInt | StrictFloat, Field(gt=0)]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class _Model(BaseModel):
    # strict: YAML reads `yes` as true and `010` as 8; a lax model would quietly accept both
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _relative_dir(value: str) -> str:
    """A working directory inside the project: relative and never climbing out of it."""
    if PurePosixPath(value).is_absolute() or PureWindowsPath(value).is_absolute():
        raise ValueError("must be relative to the project root")
    if ".." in re.split(r"[\\/]", value):
        raise ValueError("must stay inside the project (no '..')")
    return value


def _relative_file(value: str | None) -> str | None:
    return None if value is None else _relative_dir(value)


class ExternalConfig(_Model):
    """Run a command; judge its exit code and output (the seed's keys)."""

    command: NonEmpty
    success_exit_code: StrictInt = 0
    output_contains: StrictStr | None = None
    output_not_contains: StrictStr | None = None
    timeout: Seconds = 300
    working_dir: StrictStr = "."
    report: NonEmpty | None = None  # a JUnit XML file the command writes (its counts are read)

    _dir = field_validator("working_dir")(_relative_dir)
    _report = field_validator("report")(_relative_file)


class SemanticConfig(_Model):
    """Negative patterns reject first; then an agent judges `check_for`."""

    # a list, or the string "{{acceptance_criteria}}" (the spec's acceptance criteria)
    check_for: list[NonEmpty] | NonEmpty = Field(default_factory=list)
    negative_patterns: list[NonEmpty] = Field(default_factory=list)
    model: StrictStr | None = None  # passed to the judge as RALPH_JUDGE_MODEL
    timeout: Seconds = 300


class StringMatchConfig(_Model):
    """`<promise>X</promise>` in the agent's own output (an echo of the prompt never counts)."""

    promise: NonEmpty | None = None  # role criteria give theirs as `promise:`


class RevertConfig(_Model):
    """The cases added since the run began: one fails on the old code, all pass now."""

    command: NonEmpty | None = None
    timeout: Seconds = 300  # each of its two runs
    report: NonEmpty | None = None  # the JUnit XML file a runner other than pytest writes

    _report = field_validator("report")(_relative_file)


class MultiStageConfig(_Model):
    stages: Annotated[list[Stage], Field(min_length=1)]
    require_all: StrictBool = True  # stop at the first failing required stage


class MutationConfig(_Model):
    """Mutants of the Python lines changed since the run began, each tested (checks/mutation.py)."""

    command: NonEmpty | None = None  # None: the spec's test_command
    min_score: Annotated[StrictInt | StrictFloat, Field(ge=0, le=1)] = 0.6
    max_mutants: Annotated[StrictInt, Field(ge=1)] = 30
    timeout: Seconds = 300  # the whole check's budget, the unmutated run included


class _CheckBase(_Model):
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
AnyCheck = (
    ExternalCheck | SemanticCheck | StringMatchCheck | MultiStageCheck | MutationCheck | RevertCheck
)
Check = Annotated[AnyCheck, Field(discriminator="method")]
MultiStageConfig.model_rebuild()


class _RoleBase(_Model):
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


class TestsConfig(_Model):
    """Which files are this spec's tests, and whether its agent may change them."""

    paths: list[NonEmpty] | None = None  # globs; None: ralph.yaml's, else the defaults
    may_change: StrictBool = False  # True: the guard against weakened tests is off


def _revert_command(checks: list[Any], info: ValidationInfo) -> list[Any]:
    # a revert check runs the spec's test command unless it names its own
    for n, check in enumerate(checks):
        if isinstance(check, RevertCheck) and not (
            check.config.command or info.data.get("test_command")
        ):
            raise ValueError(
                f"checks[{n}] (revert) has no config.command and the spec has no "
                "test_command: give it one of them"
            )
    return checks


def _tests_shorthand(value: Any) -> Any:
    # `tests: [globs]` is short for `tests: {paths: [globs]}`
    return {"paths": value} if isinstance(value, list) else value


class SpecMeta(_Model):
    """Everything a spec's front matter may say."""

    task: StrictStr | None = None  # a title (the verification-phase seed's `task:`)
    outcome: StrictStr | None = None
    acceptance_criteria: list[NonEmpty] = Field(default_factory=list)
    completion_criteria: list[NonEmpty] = Field(default_factory=list)  # the seed's name for it
    test_command: NonEmpty | None = None
    test_timeout: Seconds = 900
    test_report: NonEmpty | None = None  # a JUnit XML file the test command writes
    max_iterations: Annotated[StrictInt, Field(ge=1)] | None = None
    verification: Literal["standard", "strict"] = "standard"
    checks: list[Check] = Field(default_factory=list)
    parallel_checks: StrictBool = False  # run independent external checks at the same time
    coder: Role | None = None
    reviewer: Role | None = None
    tester: Role | None = None
    qa: Role | None = None
    tests: TestsConfig = Field(default_factory=TestsConfig)

    _tests = field_validator("tests", mode="before")(_tests_shorthand)
    _test_report = field_validator("test_report")(_relative_file)
    _revert = field_validator("checks")(_revert_command)

    @field_validator("checks")
    @classmethod
    def _mutation_command(cls, value: list[AnyCheck], info: ValidationInfo) -> list[AnyCheck]:
        # test_command is validated before checks (field order): a mutation check needs one
        lacking = any(isinstance(c, MutationCheck) and c.config.command is None for c in value)
        if lacking and info.data.get("test_command") is None:
            # a custom error: Pydantic puts no "Value error, " before its message
            raise PydanticCustomError(
                "mutation_command",
                "a mutation check needs a command to run: give it config.command "
                "or give the spec a test_command",
            )
        return value

    @field_validator(*ROLES, mode="before")
    @classmethod
    def _default_method(cls, value: Any) -> Any:
        # the seed's default verification is string_match: the promise alone
        if isinstance(value, dict) and "verification_method" not in value:
            return {**value, "verification_method": "string_match"}
        return value

    @property
    def criteria(self) -> tuple[str, ...]:
        """The acceptance criteria, under either name."""
        return (*self.acceptance_criteria, *self.completion_criteria)

    def role(self, name: str) -> AnyRole | None:
        value: AnyRole | None = getattr(self, name)
        return value

    @property
    def caps(self) -> Caps:
        """The iteration caps, as the pure rules take them."""
        roles = {r: role.max_iterations for r in ROLES if (role := self.role(r)) is not None}
        return Caps(self.max_iterations, {r: n for r, n in roles.items() if n is not None})

    @property
    def own_commands(self) -> tuple[str, ...]:
        """The commands ralph runs itself for this spec: its test command and its required
        external checks (the final verifier is told about them)."""
        commands = [self.test_command] if self.test_command else []
        commands += [
            c.config.command for c in self.checks if isinstance(c, ExternalCheck) and c.required
        ]
        return tuple(commands)

    @property
    def gates_done(self) -> bool:
        """Does a DONE on this spec need anything beyond the counter?"""
        return bool(
            self.test_command
            or self.checks
            or self.verification == "strict"
            or any(getattr(self, r) is not None for r in ROLES)
        )


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(the YAML between the opening and closing `---`, the rest); (None, text) without any.

    Raises ValueError when a `---` opens at the top and is never closed.
    """
    body = text[1:] if text.startswith("\ufeff") else text
    lines = body.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != FENCE:
        return None, text
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n").rstrip() in (FENCE, "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    raise ValueError("the front matter opened by --- on line 1 is never closed")


def body_line_offset(text: str) -> int:
    """How many lines the front matter takes (0 without any), for line numbers in the body."""
    try:
        raw, body = split_front_matter(text)
    except ValueError:
        return 0
    if raw is None:
        return 0
    return len(text.splitlines()) - len(body.splitlines())


def parse_front_matter(path: str, text: str) -> SpecMeta | None:
    """The spec's front matter, None without any; SpecError naming the file and the key."""
    try:
        raw, _ = split_front_matter(text)
    except ValueError as exc:
        raise SpecError(f"{path}: {exc}", "close it with a line of ---") from None
    if raw is None:
        return None
    import yaml

    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        where, problem = yaml_problem(exc, 2)  # +1: 0-based, +1: the opening --- line
        raise SpecError(
            f"{path}:{where}: front matter is not valid YAML ({problem})", HINT
        ) from None
    except RecursionError:  # the parser recurses once per level of nesting
        raise SpecError(f"{path}: front matter is not valid YAML ({DEEP_YAML})", HINT) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SpecError(f"{path}: front matter must be a mapping of keys (key: value)", HINT)
    try:
        return SpecMeta.model_validate(data)
    except ValidationError as exc:
        message = invalid_value(
            f"{path}: front matter",
            exc.errors()[0],
            is_tag=_is_tag,
            brackets=True,
            unknown_key="unknown key",
            keys=model_keys(SpecMeta),
        )
        raise SpecError(message, HINT) from None


def _is_tag(part: str) -> bool:
    """A union member Pydantic puts in an error's location (`checks[0].external.config`)."""
    return part in _LOC_TAGS or part.startswith(("list[", "str", "int", "float", "bool"))


def describe(meta: SpecMeta) -> dict[str, Any]:
    """The front matter as plain data (for the worklog)."""
    return meta.model_dump(exclude_defaults=True)
