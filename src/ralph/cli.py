"""The command line: parses options, calls the core, renders, maps errors to exit codes.

Only this module imports Typer. Everything heavy is imported inside the command that needs it,
so `ralph --help` and `ralph status` start fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ralph import __version__
from ralph.errors import RalphError, report

app = typer.Typer(
    name="ralph",
    help="Run an AI coding agent in a loop until every spec is verified (0/3 -> 3/3).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

Root = Annotated[
    Path,
    typer.Option(
        "--project",
        "-C",
        help="Project root (default: the current directory).",
        file_okay=False,
        exists=True,
    ),
]


@contextmanager
def reported_errors() -> Iterator[None]:
    """RalphError -> one `error:` line and a `hint:` on stderr, and its exit code."""
    try:
        yield
    except (RalphError, OSError, KeyboardInterrupt) as exc:
        raise typer.Exit(report(exc)) from None


def _version(value: bool) -> None:
    if value:
        print(f"ralph {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Run an AI coding agent in a loop until every spec is verified (0/3 -> 3/3)."""


@app.command()
def init(
    force: Annotated[
        bool, typer.Option("--force", help="Re-create .ralph/ even if it exists (clears it).")
    ] = False,
    root: Root = Path(),
) -> None:
    """Create .ralph/, a PROMPT.md template when there is no spec, and ignore .ralph/ in git."""
    from ralph.commands import init_project

    with reported_errors():
        for line in init_project(root.resolve(), force=force):
            print(line)


@app.command()
def run(
    agent: Annotated[
        Optional[str],  # noqa: UP045 -- Typer reads the annotation at run time on Python 3.10
        typer.Option(
            "--agent",
            help="Built-in agent to run: claude, codex, gemini, cursor, opencode, pi, aider, demo.",
        ),
    ] = None,
    agent_command: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--agent-command", help="Any command; the prompt arrives on stdin."),
    ] = None,
    model: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--model", help="Model for the agent (its own --model/-m flag)."),
    ] = None,
    max_iterations: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--max-iterations", "-n", min=1, help="Rotations this run may make."),
    ] = None,
    timeout: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--timeout", min=0.001, help="Seconds one rotation may take."),
    ] = None,
    idle_timeout: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--idle-timeout", min=0.001, help="Seconds the agent may print nothing."),
    ] = None,
    plain: Annotated[
        bool, typer.Option("--plain", help="One plain line per event, even on a terminal.")
    ] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours.")] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Plain mode: also print the agent's output.")
    ] = False,
    root: Root = Path(),
) -> None:
    """Run the agent, one fresh rotation at a time, until every spec is at 3/3."""
    from ralph.runner import RunRequest, run_project

    with reported_errors():
        code = run_project(
            RunRequest(
                root=root.resolve(),
                agent=agent,
                agent_command=agent_command,
                model=model,
                max_iterations=max_iterations,
                timeout=timeout,
                idle_timeout=idle_timeout,
                plain=plain,
                no_color=no_color,
                verbose=verbose,
            )
        )
    raise typer.Exit(code)


@app.command()
def status(
    json_: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    root: Root = Path(),
) -> None:
    """Show the spec matrix, the iteration and whether a run is live."""
    from ralph.commands import print_status

    with reported_errors():
        print_status(root.resolve(), as_json=json_)


@app.command()
def reset(
    handoffs: Annotated[bool, typer.Option("--handoffs", help="Also delete the handoffs.")] = False,
    history: Annotated[
        bool, typer.Option("--history", help="Also delete the rotation history logs.")
    ] = False,
    guardrails: Annotated[
        bool, typer.Option("--guardrails", help="Also reset guardrails.md to its template.")
    ] = False,
    all_: Annotated[
        bool, typer.Option("--all", help="All of --handoffs, --history and --guardrails.")
    ] = False,
    root: Root = Path(),
) -> None:
    """Counters and iteration back to zero; each spec keeps its last status, hash and flag."""
    from ralph.commands import reset_project

    with reported_errors():
        for line in reset_project(
            root.resolve(),
            handoffs=handoffs or all_,
            history=history or all_,
            guardrails=guardrails or all_,
        ):
            print(line)


def main(argv: list[str] | None = None) -> Any:
    return app(args=argv, prog_name="ralph")
