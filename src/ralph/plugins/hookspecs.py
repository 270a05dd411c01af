"""The hooks a plugin may implement (pluggy, project name "ralph"): what ralph can run, and
what happens in a run.

Two kinds. What ralph can run (`ralph_agents`, `ralph_check_methods`, `ralph_sandbox_backends`)
returns the things themselves: ralph's own agents, check methods and sandbox backends are
registered through these very hooks, and every list of them (`--agent`'s names, the front
matter's `method:`, the sandbox profiles) is read from the plugins. The observers
(`ralph_run_started` ... `ralph_event`) each get one argument, `event`: a JSON-ready dict
(a fresh copy for each plugin, `schema_version`, `ts` and `event` first, the rest as
`ralph run --output json` writes it, secrets redacted); what they return is ignored, so an
observer cannot change a verdict, a count or what a check reads. docs/reference/hooks.md is
generated from this module.
"""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT = "ralph"  # the pluggy project name, and the entry-point group plugins install under
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

# the observer hooks, in the order a run calls them (and `ralph_event`, which sees all)
OBSERVERS = (
    "ralph_run_started",
    "ralph_rotation_started",
    "ralph_done_counted",
    "ralph_done_refused",
    "ralph_rotation_ended",
    "ralph_spec_verified",
    "ralph_spec_dropped",
    "ralph_question",
    "ralph_escalation_asked",
    "ralph_escalation",
    "ralph_limit_reached",
    "ralph_final_verification",
    "ralph_run_ended",
    "ralph_run_reported",
    "ralph_event",
)


@hookspec
def ralph_agents() -> list[Any]:  # type: ignore[empty-body]
    """Agent classes `--agent NAME` can run: each has a `key` (its name) and is called as
    `cls(env=..., model=..., args=...)` to make a `ralph.agents.command.CommandAgent` (its
    command line, its output parser, its limits and usage; see docs/how-to/write-a-plugin.md).
    A name a plugin registered before (ralph's own first) is kept."""


@hookspec
def ralph_check_methods() -> dict[str, Any]:  # type: ignore[empty-body]
    """Check methods by the `method:` key of a spec's front matter: each has a `phase`
    (`local`, `command` or `costly`) and `run(gate_input, item, dispatch) -> CheckResult`."""


@hookspec
def ralph_sandbox_backends() -> list[Any]:  # type: ignore[empty-body]
    """Sandbox backends (`--sandbox NAME`): each has a `name`, the `tool` it runs (looked up
    on PATH), an `install` hint for `doctor`, and `wrap(box, argv, cwd, env, token, room,
    sealed, given)`, the command line and environment that run `argv` inside it."""


@hookspec
def ralph_trace_context(event: dict[str, Any]) -> dict[str, str]:  # type: ignore[empty-body]
    """W3C trace context for the agent process of the rotation `event` starts (a
    `rotation_started` payload): `traceparent` and `tracestate`, passed to the agent as
    TRACEPARENT and TRACESTATE. Any other key is ignored."""


@hookspec
def ralph_run_started(event: dict[str, Any]) -> None:
    """The run holds the project and starts (`run_started`: agent, matrix)."""


@hookspec
def ralph_rotation_started(event: dict[str, Any]) -> None:
    """A rotation starts (`rotation_started`: agent, spec, mode, iteration, lane)."""


@hookspec
def ralph_done_counted(event: dict[str, Any]) -> None:
    """A DONE passed its checks and counted (`rotation_ended` with signal DONE)."""


@hookspec
def ralph_done_refused(event: dict[str, Any]) -> None:
    """A DONE was refused (`rotation_ended` with signal REFUSED; `note` says why)."""


@hookspec
def ralph_rotation_ended(event: dict[str, Any]) -> None:
    """A rotation ended (`rotation_ended`: signal, files_changed, done_count, usage, elapsed)."""


@hookspec
def ralph_spec_verified(event: dict[str, Any]) -> None:
    """A spec reached 3/3 (`rotation_ended` whose done_count is 3)."""


@hookspec
def ralph_spec_dropped(event: dict[str, Any]) -> None:
    """Specs fell from 3/3 to 2/3 (`rotation_ended` with `downgraded`)."""


@hookspec
def ralph_question(event: dict[str, Any]) -> None:
    """An agent asked the person a question (`question_asked`: spec)."""


@hookspec
def ralph_escalation_asked(event: dict[str, Any]) -> None:
    """The breaker opened and a person's choice is awaited, before it is made (on a terminal,
    someone must come and make it; headless, the configured one is taken next):
    `escalation_asked`: key, subject, failures, reasons."""


@hookspec
def ralph_escalation(event: dict[str, Any]) -> None:
    """The breaker opened and a choice was made (`escalated`: subject, choice, reasons)."""


@hookspec
def ralph_limit_reached(event: dict[str, Any]) -> None:
    """No agent is available until a limit resets (`wait_started`: until, reason)."""


@hookspec
def ralph_final_verification(event: dict[str, Any]) -> None:
    """The final verification ended (`verification_ended`: passed, summary, reasons)."""


@hookspec
def ralph_run_ended(event: dict[str, Any]) -> None:
    """The run ended (`run_ended`: exit_code, reason, matrix, usage, totals)."""


@hookspec
def ralph_run_reported(event: dict[str, Any]) -> None:
    """The run's reports are written, however it ended, a run stopped before it started
    included (`run_reported`: project, exit_code, reason, specs with path, done_count,
    verified and last_status, rotations, totals): ralph's own webhook and desktop
    notification hear this one."""


@hookspec
def ralph_event(event: dict[str, Any]) -> None:
    """Every event and record of the run, in order (the agent's output lines excepted): the
    `--output json` events and the worklog's facts (`gate_record`, `lane_opened`, ...)."""
