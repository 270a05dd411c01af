"""The command line: Typer's wiring only. Each command parses its options and calls its module
in ralph.commands; errors become one `error:` line and the exit code.

Only this module imports Typer. Each command module is imported inside the command that needs
it, so `ralph --help` and `ralph status` start fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from ralph import __version__
from ralph.commands import helptext
from ralph.errors import RalphError, report

_UsageError: type[Exception] = typer.BadParameter.__bases__[0]  # Click's UsageError


class RalphGroup(TyperGroup):  # readable --help, a refused command line in ralph's words
    def main(  # type: ignore[override]
        self, args: Any = None, prog_name: Any = None, standalone_mode: bool = True, **kw: Any
    ) -> Any:
        helptext.make_readable(self.commands.values())
        try:
            code = super().main(args, prog_name, standalone_mode=False, **kw)
        except _UsageError as exc:
            code = helptext.refused(exc, lambda text: typer.echo(text, err=True))
        if standalone_mode:
            raise SystemExit(code if isinstance(code, int) else 0)
        return code


app = typer.Typer(
    name="ralph",
    cls=RalphGroup,
    help="Run an AI coding agent in a loop until every spec is verified (0/3 -> 3/3).",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

# Choices as Typer shows them (the values are what the commands get).
SandboxChoice = Enum("SandboxChoice", {"off": "off", "auto": "auto", "srt": "srt", "bwrap": "bwrap", "docker": "docker"}, type=str)  # fmt: skip  # noqa: E501
EscalationChoice = Enum("EscalationChoice", {"abort": "abort", "accept": "accept", "continue_": "continue"}, type=str)  # fmt: skip  # noqa: E501
LogFormat = Enum("LogFormat", {"text": "text", "json": "json"}, type=str)

_ROOT = "Project root (default: the current directory)."
Root = Annotated[Path, typer.Option("--project", "-C", help=_ROOT, file_okay=False, exists=True)]

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
NoColor = Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")]


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
    from ralph.commands.init import init as init_command

    with reported_errors():
        init_command(root.resolve(), force=force)


@app.command()
def run(
    ctx: typer.Context,
    agent: Annotated[
        Optional[list[str]],  # noqa: UP045 -- Typer reads the annotation at run time on Python 3.10
        typer.Option(
            "--agent",
            help="Agent to run: claude, codex, gemini, cursor, opencode, pi, aider, demo, or a "
            "name from ralph.yaml. Repeat it to form a pool.",
        ),
    ] = None,
    agent_command: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--agent-command",
            help="Any command; the prompt arrives on stdin. Repeat it (or add --agent) "
            "to form a pool.",
        ),
    ] = None,
    rotation: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--rotation",
            help="How a pool takes turns: round-robin (default) or fallback (first available "
            "agent in the order given).",
        ),
    ] = None,
    model: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--model",
            help="Model for the agent (its own --model/-m flag); in a pool, every agent's.",
        ),
    ] = None,
    max_iterations: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--max-iterations", "-n", min=1, help=helptext.MAX_ITERATIONS),
    ] = None,
    max_cost: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--max-cost", help="USD this run may spend (as the agents report it)."),
    ] = None,
    max_tokens: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--max-tokens", min=1, help="Tokens (in + out) this run may use."),
    ] = None,
    timeout: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--timeout", min=0.001, help=helptext.TIMEOUT),
    ] = None,
    idle_timeout: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--idle-timeout", min=0.001, help=helptext.IDLE_TIMEOUT),
    ] = None,
    plain: Annotated[
        bool,
        typer.Option(
            "--headless",
            "--plain",
            help="No live panel, no prompts: one timestamped line per event (automatic when "
            "stdout is not a terminal or CI is set).",
        ),
    ] = False,
    log_format: Annotated[
        LogFormat,
        typer.Option(
            "--log-format",
            help="Headless lines as text, or as JSON lines (one object per event) on stdout.",
        ),
    ] = LogFormat.text,
    no_color: NoColor = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Headless: also print the agent's output.")
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print only warnings and how the run ended."),
    ] = False,
    junit: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--junit",
            dir_okay=False,
            help="Write a JUnit XML report here at the end (one test case per spec).",
        ),
    ] = None,
    report_json: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(
            "--report-json", dir_okay=False, help="Write the final matrix and totals as JSON."
        ),
    ] = None,
    notify: Annotated[
        bool,
        typer.Option("--notify", help="A desktop notification when the run ends (if available)."),
    ] = False,
    continue_: Annotated[
        bool,
        typer.Option(
            "--continue",
            help="Resume with the options the last run started with; options given override.",
        ),
    ] = False,
    on_escalation: Annotated[
        Optional[EscalationChoice],  # noqa: UP045
        typer.Option(
            "--on-escalation",
            help="When the circuit breaker opens and no one can be asked (no terminal, or CI): "
            "abort (default), accept or continue.",
            case_sensitive=False,
        ),
    ] = None,
    sandbox: Annotated[
        Optional[SandboxChoice],  # noqa: UP045
        typer.Option("--sandbox", help="Run agents and checks in this sandbox, or refuse to."),
    ] = None,
    spec: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(
            "--spec",
            help="Work only on this spec (a path); repeat it for several. The others keep "
            "their counters.",
        ),
    ] = None,
    root: Root = Path(),
) -> None:
    """Run the agent, one fresh rotation at a time, until every spec is at 3/3."""
    from ralph.commands.run import run as run_command

    if quiet and verbose:
        raise typer.BadParameter("--quiet and --verbose contradict each other; give one")
    with reported_errors():
        root = root.resolve()
        from ralph.commands.runoptions import options_of

        code = run_command(root, options_of(ctx, continue_, root))
    raise typer.Exit(code)


@app.command()
def status(
    json_: JsonFlag = False,
    watch: Annotated[
        bool, typer.Option("--watch", "-w", help="Redraw the matrix until Ctrl-C.")
    ] = False,
    interval: Annotated[
        float, typer.Option("--interval", min=0.1, help="Seconds between redraws (--watch).")
    ] = 2.0,
    no_color: NoColor = False,
    log: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--log", min=1, help="Also show the last N worklog events."),
    ] = None,
    root: Root = Path(),
) -> None:
    """Show the spec matrix, the iteration and whether a run is live."""
    from ralph.commands.status import status as status_command

    if watch and json_:
        raise typer.BadParameter("--watch redraws a table; for JSON poll ralph status --json")
    with reported_errors():
        status_command(
            root.resolve(),
            as_json=json_,
            watch=watch,
            interval=interval,
            no_color=no_color,
            log=log,
        )


@app.command()
def history(
    rotation: Annotated[
        Optional[int],  # noqa: UP045
        typer.Argument(help="Show this rotation's log instead of the list.", min=1),
    ] = None,
    spec: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--spec", "-s", help="Only the rotations of this spec (path)."),
    ] = None,
    tail: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--tail", min=0, help="With a rotation: only its last N lines."),
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="The list as JSON.")] = False,
    pager: Annotated[
        bool, typer.Option("--pager/--no-pager", help="Page long output on a terminal.")
    ] = True,
    root: Root = Path(),
) -> None:
    """List past rotations, or show one rotation's log (`ralph history 12`)."""
    from ralph.commands.history import history as history_command

    if rotation is None and tail is not None:
        raise typer.BadParameter("--tail goes with a rotation number: ralph history 12 --tail 50")
    with reported_errors():
        history_command(
            root.resolve(), rotation=rotation, spec=spec, tail=tail, as_json=json_, pager=pager
        )


@app.command()
def inspect(
    follow: Annotated[
        bool,
        typer.Option(
            "--follow", "-f", help="Stream the live rotation's output until the run ends."
        ),
    ] = False,
    json_: JsonFlag = False,
    root: Root = Path(),
) -> None:
    """Is a run live, and what is it doing: pid, spec, rotation, since when, which agent."""
    from ralph.commands.inspect import inspect as inspect_command

    with reported_errors():
        inspect_command(root.resolve(), follow=follow, as_json=json_)


@app.command()
def cancel(
    now: Annotated[
        bool,
        typer.Option("--now", help="Stop the agent now (state saved) instead of after it."),
    ] = False,
    wait: Annotated[bool, typer.Option("--wait", help="Return once the run has stopped.")] = False,
    root: Root = Path(),
) -> None:
    """Ask the live run to stop after the current rotation (or --now); it exits 130."""
    from ralph.commands.cancel import cancel as cancel_command

    with reported_errors():
        cancel_command(root.resolve(), now=now, wait=wait)


@app.command()
def agents(json_: JsonFlag = False, root: Root = Path()) -> None:
    """List the built-in agents: installed or not (with the version), and how each is run."""
    from ralph.commands.agents import agents as agents_command

    with reported_errors():
        agents_command(root.resolve(), as_json=json_)


@app.command()
def doctor(json_: JsonFlag = False, root: Root = Path()) -> None:
    """Check the sandbox and every agent CLI (installed, logged in) without spending tokens."""
    from ralph.commands.doctor import doctor as doctor_command

    with reported_errors():
        raise typer.Exit(doctor_command(root.resolve(), as_json=json_))


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
    """Counters and iteration back to zero (rotation numbers go on); specs keep their status."""
    from ralph.commands.reset import reset as reset_command

    with reported_errors():
        reset_command(
            root.resolve(),
            handoffs=handoffs or all_,
            history=history or all_,
            guardrails=guardrails or all_,
        )


@app.command()
def accept(
    spec: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option("--spec", "-s", help="Only what concerns this spec (path)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Accept without asking.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", "--list", help="Only show what waits (exit 5 if any).")
    ] = False,
    root: Root = Path(),
) -> None:
    """Show what an agent changed of the checks or the tests, and accept it as a person."""
    from ralph.commands.accept import accept as accept_command

    with reported_errors():
        raise typer.Exit(accept_command(root.resolve(), spec=spec, yes=yes, dry_run=dry_run))


def main(argv: list[str] | None = None) -> Any:
    return app(args=argv, prog_name="ralph")
