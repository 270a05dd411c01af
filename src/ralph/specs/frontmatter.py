"""Spec front matter: YAML between `---` lines at the very top of a spec, validated by Pydantic.

It says what "done" means for that spec beyond the 0/3 -> 3/3 counter: a test command, checks
(string_match, external, semantic, multi_stage), the verification tier, per-spec and per-role
iteration caps. A spec without front matter behaves exactly as before.

`split_front_matter` is cheap and free of heavy imports; YAML and Pydantic are loaded only when a
spec really has front matter (`ralph status` and `--help` never get here).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    StrictBool,
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
from ralph.rules.counts.caps import Caps
from ralph.specs.checkconfig import (
    OWN_METHODS,
    AnyRole,
    ExternalCheck,
    MutationCheck,
    NonEmpty,
    RevertCheck,
    Role,
    Seconds,
    StrictModel,
    relative_file,
)
from ralph.specs.plugincheck import AnyCheck, Check

FENCE = "---"
HINT = (
    "fix the YAML between the --- lines at the top of the spec (the keys: "
    f"{docs_page('reference/front-matter.md')})"
)
ROLES = ("coder", "reviewer", "tester", "qa")
_LOC_TAGS = frozenset({*OWN_METHODS, "plugin"})


class TestsConfig(StrictModel):
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


class SpecMeta(StrictModel):
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
    _test_report = field_validator("test_report")(relative_file)
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
