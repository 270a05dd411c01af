"""The settings of `ralph run`, each declared once: a new option is one field here. Its flags,
older spellings, ralph.yaml key, help and type are read by cli.py (the command line), by
`--continue` (the saved run, commands/runoptions.py), by `resolve` (the precedence rule of
rules/environment/setting.py) alike; the run reads the resolved value as `opts.settings.NAME`
(run/options.py).

Read at every start-up to build the command line: nothing heavy is imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ralph.rules.environment.setting import Alias, agent_level, layered, setting, yaml_level

COMMAND = "cmd:"  # `--agent cmd:CMD`: any command, never taken for an agent's name
HEADLESS = ("plain", "json")  # the outputs that draw no panel and never ask
REPORTS = ("junit", "json", "html")
_REPORT_FLAGS = (("--report-junit", "--junit"), ("--report-json",), ("--report-html",))
_LOG_FORMATS = {"text": "live", "json": "json"}  # --log-format text on a terminal: the panel

_AGENT = (
    "Agent to run: claude, codex, gemini, cursor, opencode, pi, aider, demo, a name from "
    "ralph.yaml, or any command as cmd:COMMAND (the prompt arrives on stdin). Repeat it to form "
    "a pool, in the order given."
)
_OUTPUT = (
    "live: the panel on a terminal (plain lines when stdout is not one, or CI is set); "
    "no-color: the panel without colours (as NO_COLOR); plain: no panel, no prompts, one "
    "timestamped line per event; json: the same as JSON lines on stdout."
)
_REPORT = (
    "Write a report at the end: junit (JUnit XML, one test case per spec), json (the final "
    "matrix and totals), html (the run as one self-contained file). Repeat it for several."
)


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """A run's settings, resolved; a field without a default takes ralph.yaml's (its default)."""

    agent: tuple[str, ...] = setting(
        "--agent",
        help=_AGENT,
        default=(),
        metavar="NAME",
        aliases=(Alias("agent_command", ("--agent-command",), COMMAND + "{}", "CMD"),),
    )
    rotation: Literal["round-robin", "fallback"] = setting(
        "--rotation",
        help="How a pool takes turns: round-robin, the default, or fallback, the first available "
        "agent in the order given.",
        yaml="pool.rotation",
    )
    model: str | None = setting(
        "--model",
        help="Model for the agent (its own --model/-m flag); in a pool, every agent's.",
        default=None,
        each_agent="model",
        metavar="MODEL",
    )
    max_iterations: int = setting(
        "--max-iterations",
        "-n",
        help="Rotations this run may make, default 20.",
        yaml="max_iterations",
        minimum=1,
        metavar="N",
    )
    max_cost: float | None = setting(
        "--max-cost",
        help="USD this run may spend, as the agents report it.",
        default=None,
        yaml="max_cost",
        above=0,
        metavar="USD",
    )
    max_tokens: int | None = setting(
        "--max-tokens",
        help="Tokens (in + out) this run may use.",
        default=None,
        yaml="max_tokens",
        minimum=1,
        metavar="N",
    )
    timeout: float | None = setting(
        "--timeout",
        help="Seconds one rotation may take, default 3600.",
        default=None,
        yaml="agent.timeout",
        each_agent="timeout",
        minimum=0.001,
        metavar="SECONDS",
    )
    idle_timeout: float | None = setting(
        "--idle-timeout",
        help="Seconds the agent may print nothing; none set, no limit.",
        default=None,
        yaml="agent.idle_timeout",
        each_agent="idle_timeout",
        minimum=0.001,
        metavar="SECONDS",
    )
    # listed least headless first: given several ways at once, the last of them wins
    output: Literal["live", "no-color", "plain", "json"] = setting(
        "--output",
        help=_OUTPUT,
        default="live",
        aliases=(
            Alias("plain", ("--headless", "--plain"), "plain"),
            Alias("log_format", ("--log-format",), metavar="text|json", choices=_LOG_FORMATS),
            Alias("no_color", ("--no-color",), "no-color"),
        ),
    )
    quiet: bool = setting(
        "--quiet",
        "-q",
        help="Print only warnings and how the run ended.",
        default=False,
        group="talk",
    )
    verbose: bool = setting(
        "--verbose",
        "-v",
        help="Headless: also print the agent's output.",
        default=False,
        group="talk",
    )
    report: tuple[str, ...] = setting(
        "--report",
        help=_REPORT,
        default=(),
        metavar="KIND=PATH",
        kinds=REPORTS,
        aliases=tuple(
            Alias(f"report_{k}" if k != "junit" else k, flags, f"{k}={{}}", "FILE")
            for k, flags in zip(REPORTS, _REPORT_FLAGS, strict=True)
        ),
    )
    notify: bool = setting(
        "--notify", help="A desktop notification when the run ends (if available).", default=False
    )
    otel: bool = setting(
        "--otel",
        help="Send the run's trace to an OpenTelemetry collector (needs ralph-spec-loop[otel]; "
        "the OTEL_* variables say where). On without it when OTEL_EXPORTER_OTLP_ENDPOINT or "
        "OTEL_TRACES_EXPORTER=otlp is set.",
        default=False,
    )
    on_escalation: Literal["abort", "accept", "continue"] = setting(
        "--on-escalation",
        help="When the circuit breaker opens and no one can be asked (no terminal, or CI): "
        "abort, the default, accept or continue.",
        yaml="on_escalation",
    )
    wait_for_reset: bool = setting(
        "--wait-for-reset", help="Wait for a weekly or daily limit to reset.", default=False
    )
    sandbox: Literal["off", "auto", "srt", "bwrap", "docker"] = setting(
        "--sandbox",
        help="Run agents and checks in this sandbox, or refuse to; default off.",
        yaml="sandbox.profile",
    )
    spec: tuple[str, ...] = setting(
        "--spec",
        help="Work only on this spec (path); repeat it for several.",
        default=(),
        metavar="PATH",
    )
    parallel: int = setting(
        "--parallel",
        "-j",
        help="Up to N specs at once, in git worktrees; default 1.",
        yaml="parallel",
        minimum=1,
        metavar="N",
    )

    @property
    def reports(self) -> dict[str, Path]:
        """The report files by kind (junit, json, html)."""
        return {k: Path(path) for k, _, path in (item.partition("=") for item in self.report)}

    @property
    def headless(self) -> bool:
        return self.output in HEADLESS


def resolve(kept: Mapping[str, Any], config: Any, entry: Any = None) -> RunSettings:
    """The settings of this run: those given or kept (`layered` already put the command line
    before the saved run), then ralph.yaml's (`config`, a RalphConfig), then the defaults. With
    `entry` (an AgentConfig: an agent's own entry in ralph.yaml), that agent's: the keys its
    entry sets come before the rest of ralph.yaml (its `agent:` block)."""
    own = {} if entry is None else {key: getattr(entry, key) for key in entry.model_fields_set}
    levels = (kept, agent_level(RunSettings, own), yaml_level(RunSettings, config))
    return RunSettings(**layered(RunSettings, levels))
