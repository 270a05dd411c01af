"""`ralph.yaml`: the configuration a team commits, validated with Pydantic."""

from __future__ import annotations

import re
import sys
from pathlib import Path
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
    field_validator,
    model_validator,
)

from ralph.errors import (
    DEEP_YAML,
    ConfigError,
    docs_page,
    invalid_value,
    model_keys,
    yaml_problem,
)
from ralph.rules.agents.cmdline import split_command

CONFIG_FILE = "ralph.yaml"
_TYPE_TAG = re.compile(r"(str|int|float|bool|none|list\[.*\]|dict\[.*\])")


Mode = Literal["implement", "review", "verify", "judge"]


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # strict: YAML reads `yes` as true, and a lax int would quietly turn that into 1
    name: StrictStr | None = None  # a built-in agent ("claude", "codex", ..., "demo")
    command: StrictStr | list[StrictStr] | None = None  # any command; the prompt is on stdin
    timeout: Annotated[StrictFloat, Field(gt=0)] | None = 3600.0  # seconds per rotation
    idle_timeout: Annotated[StrictFloat, Field(gt=0)] | None = None  # seconds without output
    kill_grace: Annotated[StrictFloat, Field(ge=0)] = 5.0  # SIGTERM -> SIGKILL delay
    env: dict[StrictStr, StrictStr] = Field(default_factory=dict)  # extra agent environment
    model: StrictStr | None = None  # passed with the CLI's own model flag (--model overrides)
    # a model per mode, falling back to `model:` (--model overrides them all)
    models: dict[Mode, StrictStr] = Field(default_factory=dict)
    args: list[StrictStr] = Field(default_factory=list)  # extra arguments for the CLI

    @field_validator("command")
    @classmethod
    def _not_empty(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is not None and not (value.strip() if isinstance(value, str) else value):
            raise ValueError("must not be empty")
        if isinstance(value, str):
            # an unbalanced quote: ValueError, reported with the key
            split_command(value, windows=sys.platform == "win32")
        return value

    @property
    def configured(self) -> bool:
        return self.name is not None or self.command is not None


class PoolConfig(BaseModel):
    """How the agents of a pool take turns and what happens when one fails (see pool.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rotation: Literal["round-robin", "fallback"] = "round-robin"
    fresh_eyes: StrictBool = True  # REVIEW prefers another agent than the last one to change files
    backoff: Annotated[StrictFloat, Field(gt=0)] = 900.0  # rate limit without a reset time
    max_failures: Annotated[StrictInt, Field(ge=1)] | None = 3  # failures in a row -> evicted
    max_wait: Annotated[StrictFloat, Field(ge=0)] = 6 * 3600.0  # longest wait for a reset
    # a short limit (per-minute API limit, busy server): first retry delay, retries in a row
    short_backoff: Annotated[StrictFloat, Field(gt=0)] = 10.0
    short_retries: Annotated[StrictInt, Field(ge=0)] = 5


def _agent_shorthand(value: Any) -> Any:
    # `agent: demo` is short for `agent: {name: demo}`.
    return {"name": value} if isinstance(value, str) else value


class BreakerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: Annotated[StrictInt, Field(ge=1)] = 3  # consecutive failures that open it
    cooldown: Annotated[StrictFloat, Field(ge=0)] = 300.0  # seconds before one trial


class LimitsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # percent of a limit window (as the agent's CLI reports it) at which the agent is parked
    # until the window resets; None: run it until the CLI refuses
    pause_at: Annotated[StrictFloat, Field(gt=0, le=100)] | None = None


class ConvergenceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    patience: Annotated[StrictInt, Field(ge=1)] = 4  # REVIEWs in a row that changed files


EscalationChoice = Literal["abort", "accept", "continue"]
SandboxChoice = Literal["off", "auto", "srt", "bwrap", "docker"]


class SandboxConfig(BaseModel):
    """`sandbox:` where every agent, judge and check command runs (see process/sandbox.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: SandboxChoice = "off"
    allow_hosts: list[StrictStr] = Field(default_factory=list)  # added to the pool's API hosts
    deny_read: list[StrictStr] = Field(default_factory=list)  # added to the usual secrets folders
    allow_write: list[StrictStr] = Field(default_factory=list)  # more writable folders
    image: StrictStr | None = None  # the docker profile's image (it must hold the agent CLIs)
    # Variables of ralph's environment passed into the sandbox by name (beyond the basic ones,
    # ralph's own and each agent CLI's credentials); everything else stays out.
    env: list[StrictStr] = Field(default_factory=list)

    @field_validator("env")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise ValueError(f"{name!r} is not a variable name (letters, digits, _)")
        return value

    @field_validator("allow_hosts", "deny_read", "allow_write")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        if any(not item.strip() for item in value):
            raise ValueError("entries must not be empty")
        return value


def _sandbox_shorthand(value: Any) -> Any:
    # `sandbox: srt` is short for `sandbox: {profile: srt}`; YAML reads `off` as false.
    if isinstance(value, bool):
        return {"profile": "auto" if value else "off"}
    return {"profile": value} if isinstance(value, str) else value


class NotifyConfig(BaseModel):
    """`notify:` who hears of a run: a webhook POSTed JSON at the end and when a person is
    needed (ui/webhook.py). `$NAME` reads the URL from that environment variable, so a secret
    URL (Slack's are) need not be committed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    webhook: StrictStr | None = None

    @field_validator("webhook")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        # The message never repeats the value: a webhook URL is a secret.
        named = value is not None and re.fullmatch(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", value)
        if value is not None and not named and not re.match(r"https?://[^/\s]+", value):
            raise ValueError("must be an http:// or https:// URL, or $NAME of a variable")
        return value

    def webhook_url(self, env: dict[str, str]) -> str | None:
        """The URL to POST to; None when none is set (or its variable is empty)."""
        value = self.webhook
        if value is None or not value.startswith("$"):
            return value
        url = env.get(value.strip("${}"), "").strip()
        return url if re.match(r"https?://[^/\s]+", url) else None


class PluginsConfig(BaseModel):
    """`plugins:` which of the person's installed plugins this project uses (src/ralph/plugins/):
    `disable` leaves some out, `require` refuses to run without them. Like every setting, an
    agent's edit of it waits for `ralph accept`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    disable: list[Annotated[StrictStr, Field(min_length=1)]] = Field(default_factory=list)
    require: list[Annotated[StrictStr, Field(min_length=1)]] = Field(default_factory=list)


class TestsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    paths: list[Annotated[StrictStr, Field(min_length=1)]] | None = None  # None: the defaults


class RalphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: AgentConfig = Field(default_factory=AgentConfig)
    agents: list[AgentConfig] | None = None  # a pool; `agent:` is a pool of one
    pool: PoolConfig = Field(default_factory=PoolConfig)
    max_iterations: Annotated[StrictInt, Field(ge=1)] = 20
    parallel: Annotated[StrictInt, Field(ge=1)] = 1  # specs worked on at once (lanes)
    max_cost: Annotated[StrictFloat, Field(gt=0)] | None = None  # USD this run may spend
    max_tokens: Annotated[StrictInt, Field(ge=1)] | None = None  # tokens in+out this run
    # the independent verification once every spec is at 3/3
    final_verification: StrictBool = True
    max_verification_failures: Annotated[StrictInt, Field(ge=1)] = 3
    # the project's tests, run by ralph itself in the final verification (shell syntax)
    test_command: StrictStr | None = None
    test_timeout: Annotated[StrictFloat, Field(gt=0)] = 1800.0
    breaker: BreakerConfig = Field(default_factory=BreakerConfig)
    convergence: ConvergenceConfig = Field(default_factory=ConvergenceConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    on_escalation: EscalationChoice = "abort"  # what a headless run does when the breaker opens
    latency_budget_ms: Annotated[StrictFloat, Field(gt=0)] = 3000.0
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    notify: NotifyConfig = Field(default_factory=NotifyConfig)
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox_shorthand(cls, value: Any) -> Any:
        return _sandbox_shorthand(value)

    tests: TestsConfig = Field(default_factory=TestsConfig)  # which files are the tests

    @field_validator("tests", mode="before")
    @classmethod
    def _tests_shorthand(cls, value: Any) -> Any:
        # `tests: [globs]` is short for `tests: {paths: [globs]}`
        return {"paths": value} if isinstance(value, list) else value

    @field_validator("test_command")
    @classmethod
    def _command_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_shorthand(cls, value: Any) -> Any:
        return _agent_shorthand(value)

    @field_validator("agents", mode="before")
    @classmethod
    def _agents_shorthand(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_agent_shorthand(item) for item in value]
        return value

    @field_validator("agents")
    @classmethod
    def _agents_named(cls, value: list[AgentConfig] | None) -> list[AgentConfig] | None:
        if value is not None:
            if not value:
                raise ValueError("list at least one agent, or leave the key out")
            for item in value:
                if not item.configured:
                    raise ValueError("each agent needs a name (a built-in agent) or a command")
        return value

    @model_validator(mode="after")
    def _one_way_to_name_agents(self) -> RalphConfig:
        if self.agents is not None and "agent" in self.model_fields_set:
            raise ValueError("give either agent: (one agent) or agents: (a pool), not both")
        return self

    @property
    def members(self) -> list[AgentConfig]:
        """The agents the file names: the pool, or the single agent, or none."""
        if self.agents is not None:
            return list(self.agents)
        return [self.agent] if self.agent.configured else []


def load_config(root: Path) -> RalphConfig:
    """The project's ralph.yaml as it is on disk, or the defaults when there is none;
    ConfigError when invalid. `ralph run` and the other commands use the settings a person
    accepted instead (store/person/settings.py)."""
    text = read_config_text(root)
    return RalphConfig() if text is None else parse_config(text)


def read_config_text(root: Path) -> str | None:
    """ralph.yaml as it is now; None when there is none. Read as any file an agent could have
    written (store/disk/reader.py): a link may lead only inside the project, a pipe is refused."""
    from ralph.errors import RalphError
    from ralph.store.disk import reader

    try:
        raw = reader.read_bytes(root / CONFIG_FILE, limit=reader.TEXT_LIMIT, root=root, follow=True)
        return raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except RalphError as exc:
        raise ConfigError(f"{CONFIG_FILE}: {exc.message}", exc.hint) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{CONFIG_FILE}: cannot read ({exc})", "save it as UTF-8 text") from exc


def parse_config(text: str) -> RalphConfig:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where, problem = yaml_problem(exc, 1)
        raise ConfigError(
            f"{CONFIG_FILE}:{where}: invalid YAML ({problem})", "fix the YAML syntax"
        ) from exc
    except RecursionError:  # the parser recurses once per level of nesting
        message = f"{CONFIG_FILE}: invalid YAML ({DEEP_YAML})"
        raise ConfigError(message, "fix the YAML syntax") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{CONFIG_FILE}: expected a mapping of keys at the top level")
    try:
        return RalphConfig.model_validate(data)
    except ValidationError as exc:
        message = invalid_value(
            CONFIG_FILE,
            exc.errors()[0],
            is_tag=_is_tag,
            brackets=False,
            unknown_key="unknown key",
            keys=model_keys(RalphConfig),
        )
        raise ConfigError(
            message,
            f"the keys ralph.yaml accepts: {docs_page('reference/ralph-yaml.md')}",
        ) from exc


def _is_tag(part: str) -> bool:
    """A union member Pydantic puts in an error's location (`agent.command.str`)."""
    return _TYPE_TAG.fullmatch(part) is not None
