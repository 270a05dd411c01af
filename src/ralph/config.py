"""`ralph.yaml`: the configuration a team commits, validated with Pydantic."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ralph.errors import ConfigError

CONFIG_FILE = "ralph.yaml"


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None  # a built-in agent ("demo"); None with `command` for a custom one
    command: str | list[str] | None = None  # a custom agent: the prompt arrives on stdin
    timeout: float | None = Field(default=3600.0, gt=0)  # wall-clock seconds per rotation
    idle_timeout: float | None = Field(default=None, gt=0)  # seconds without any output
    kill_grace: float = Field(default=5.0, ge=0)  # SIGTERM -> SIGKILL delay for the agent's tree
    env: dict[str, str] = Field(default_factory=dict)  # extra environment for the agent

    @field_validator("command")
    @classmethod
    def _not_empty(cls, value: str | list[str] | None) -> str | list[str] | None:
        if value is not None and not (value.strip() if isinstance(value, str) else value):
            raise ValueError("must not be empty")
        return value


class RalphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: AgentConfig = Field(default_factory=AgentConfig)
    max_iterations: int = Field(default=20, ge=1)

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_shorthand(cls, value: Any) -> Any:
        # `agent: demo` is short for `agent: {name: demo}`.
        return {"name": value} if isinstance(value, str) else value


def load_config(root: Path) -> RalphConfig:
    """The project's ralph.yaml, or the defaults when there is none; ConfigError when invalid."""
    path = root / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return RalphConfig()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{CONFIG_FILE}: cannot read ({exc})", "save it as UTF-8 text") from exc
    return parse_config(text)


def parse_config(text: str) -> RalphConfig:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{CONFIG_FILE}:{where}: invalid YAML ({problem})", "fix the YAML syntax"
        ) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{CONFIG_FILE}: expected a mapping of keys at the top level")
    try:
        return RalphConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(part) for part in err["loc"]) or "(top level)"
        raise ConfigError(
            f"{CONFIG_FILE}: {key}: {err['msg']}",
            "see the Configuration section of the README for the keys ralph.yaml accepts",
        ) from exc
