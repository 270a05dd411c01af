"""The command line: Typer's wiring only. Each command parses its options and calls its module
in ralph.commands; errors become one `error:` line and the exit code.

Only this module imports Typer. Each command module is imported inside the command that needs
it, so `ralph --help` and `ralph status` start fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from inspect import Parameter, Signature
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from ralph import __version__
from ralph.commands import helptext
from ralph.errors import RalphError

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

_ROOT = "Run as if started in this folder (before or after the command)."
Root = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--project", "-C", help=_ROOT, file_okay=False, exists=True),
]


def _opt(*names: str, **more: Any) -> Any:
    """An option whose help is in helptext.HELP, under its first name."""
    return typer.Option(*names, help=helptext.HELP[names[0]], **more)


def project_root(given: Path | None) -> Path:
    """The project a command is about: found from -C DIR, or the current folder, upwards
    (the nearest folder with .ralph/, else the git work tree's top; store/disk/root.py)."""
    from ralph.store.disk.root import find_root

    return find_root((given or Path()).resolve())


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
NoColor = Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")]


@contextmanager
def reported_errors() -> Iterator[None]:
    """RalphError -> one `error:` line and a `hint:` on stderr, and its exit code."""
    try:
        yield
    except (RalphError, OSError, KeyboardInterrupt) as exc:
        raise typer.Exit(helptext.reported(exc)) from None


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
    nested: Annotated[
        bool,
        typer.Option("--nested", help="Make a project inside another ralph project's folder."),
    ] = False,
    root: Root = None,
) -> None:
    """Create .ralph/, a PROMPT.md template when there is no spec, and ignore .ralph/ in git."""
    from ralph.commands.init import init as init_command

    with reported_errors():
        init_command((root or Path()).resolve(), force=force, nested=nested)


def run(continue_: bool = False, root: Path | None = None, **options: Any) -> None:
    """Run the agent, one fresh rotation at a time, until every spec is at 3/3."""
    from ralph.commands.run import run as run_command

    with reported_errors():
        code = run_command(project_root(root), options, continue_=continue_)
    raise typer.Exit(code)


def _run_parameters() -> list[Parameter]:
    """`ralph run`'s parameters, made from its settings (run/settings.py): each one's
    own spelling in --help; its older spellings hidden there, but named in its help."""
    from ralph.rules.environment.setting import declared
    from ralph.run.settings import RunSettings

    made = []
    for d in declared(RunSettings):
        s = d.setting
        kind = _choice(d.name, d.choices) or d.kind
        made.append(_option(d.name, s.flags, kind, d.many, s.described(), s.metavar))
        for a in s.aliases:  # a flag, or a value (as many times as the setting takes one)
            kind = (_choice(a.key, tuple(a.choices or ())) or str) if a.metavar else bool
            made.append(_option(a.key, a.flags, kind, d.many, None, a.metavar))
    made.append(Parameter("continue_", _KEYWORD, default=False, annotation=Continue))
    made.append(Parameter("root", _KEYWORD, default=None, annotation=Root))
    return made


_KEYWORD = Parameter.KEYWORD_ONLY
Continue = Annotated[bool, typer.Option("--continue", help=helptext.HELP["--continue"])]


def _choice(name: str, choices: tuple[str, ...]) -> Any:
    """Choices as an Enum, which Typer shows and checks as such (None: no choices)."""
    return Enum(f"{name}_choice", {c: c for c in choices}, type=str) if choices else None


def _option(
    name: str, flags: Any, kind: Any, many: bool, help_text: str | None, metavar: str | None
) -> Parameter:
    """One option of `ralph run` (a flag when `kind` is bool, else a value, repeatable when
    `many`); `help_text` None: an older spelling, hidden from --help."""
    option = typer.Option(
        *flags,
        help=help_text,
        hidden=help_text is None,
        metavar=metavar,
        case_sensitive=False,
        show_default=False,
    )
    if kind is bool:
        return Parameter(name, _KEYWORD, default=False, annotation=Annotated[bool, option])
    value: Any = Optional[list[kind] if many else kind]  # noqa: UP045
    return Parameter(name, _KEYWORD, default=None, annotation=Annotated[value, option])


run.__signature__ = Signature(_run_parameters())  # type: ignore[attr-defined]
app.command()(run)


@app.command()
def plan(json_: JsonFlag = False, root: Root = None) -> None:
    """List the specs that need work and their lane branches (--json: a CI job matrix)."""
    from ralph.commands.plan import plan as plan_command

    with reported_errors():
        raise typer.Exit(plan_command(project_root(root), as_json=json_))


@app.command()
def status(
    json_: JsonFlag = False,
    watch: Annotated[bool, _opt("--watch", "-w")] = False,
    interval: Annotated[float, _opt("--interval", min=0.1)] = 2.0,
    no_color: NoColor = False,
    log: Annotated[Optional[int], _opt("--log", min=1)] = None,  # noqa: UP045
    root: Root = None,
) -> None:
    """Show the spec matrix, the iteration and whether a run is live."""
    from ralph.commands.status import status as status_command

    if watch and json_:
        raise typer.BadParameter("--watch redraws a table; for JSON poll ralph status --json")
    with reported_errors():
        status_command(
            project_root(root),
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
    root: Root = None,
) -> None:
    """List past rotations, or show one rotation's log (`ralph history 12`)."""
    from ralph.commands.history import history as history_command

    if rotation is None and tail is not None:
        raise typer.BadParameter("--tail goes with a rotation number: ralph history 12 --tail 50")
    with reported_errors():
        history_command(
            project_root(root), rotation=rotation, spec=spec, tail=tail, as_json=json_, pager=pager
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
    root: Root = None,
) -> None:
    """Is a run live, and what is it doing: pid, spec, rotation, since when, which agent."""
    from ralph.commands.inspect import inspect as inspect_command

    with reported_errors():
        inspect_command(project_root(root), follow=follow, as_json=json_)


@app.command("report")
def report_command(
    html: Annotated[Optional[Path], _opt("--html", dir_okay=False)] = None,  # noqa: UP045
    run_id: Annotated[Optional[str], _opt("--run")] = None,  # noqa: UP045
    job: Annotated[bool, _opt("--job")] = False,
    root: Root = None,
) -> None:
    """Write a report of the latest run (during the run too): --html, one self-contained file."""
    from ralph.commands.report import report as write_report

    with reported_errors():
        raise typer.Exit(write_report(project_root(root), html=html, run_id=run_id, job=job))


@app.command()
def cancel(
    now: Annotated[
        bool,
        typer.Option("--now", help="Stop the agent now (state saved) instead of after it."),
    ] = False,
    wait: Annotated[bool, typer.Option("--wait", help="Return once the run has stopped.")] = False,
    root: Root = None,
) -> None:
    """Ask the live run to stop after the current rotation (or --now); it exits 130."""
    from ralph.commands.cancel import cancel as cancel_command

    with reported_errors():
        cancel_command(project_root(root), now=now, wait=wait)


@app.command()
def agents(json_: JsonFlag = False, root: Root = None) -> None:
    """List the built-in agents: installed or not (with the version), and how each is run."""
    from ralph.commands.agents import agents as agents_command

    with reported_errors():
        agents_command(project_root(root), as_json=json_)


@app.command()
def plugins(json_: JsonFlag = False, root: Root = None) -> None:
    """List the plugins: ralph's own and those installed beside it, where from, their version."""
    from ralph.commands.plugins import plugins_command

    with reported_errors():
        plugins_command(project_root(root), as_json=json_)


@app.command()
def doctor(json_: JsonFlag = False, root: Root = None) -> None:
    """Check the sandbox and every agent CLI (installed, logged in) without spending tokens."""
    from ralph.commands.doctor import doctor as doctor_command

    with reported_errors():
        raise typer.Exit(doctor_command(project_root(root), as_json=json_))


_SCHEMA = (
    "status, report, history, agents, plan, inspect, doctor, plugins, hook or event "
    "(none: list them)."
)
SchemaName = Annotated[Optional[str], typer.Argument(help=_SCHEMA, show_default=False)]  # noqa: UP045


@app.command()
def schema(name: SchemaName = None) -> None:
    """Print the JSON Schema of a --json output, of the --report json= report or of a run event."""
    from ralph.commands.schema import schema as schema_command

    with reported_errors():
        schema_command(name)


@app.command()
def reset(
    handoffs: Annotated[bool, _opt("--handoffs")] = False,
    history: Annotated[bool, _opt("--history")] = False,
    guardrails: Annotated[bool, _opt("--guardrails")] = False,
    lanes: Annotated[bool, _opt("--lanes")] = False,
    all_: Annotated[bool, _opt("--all")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Discard lanes without asking.")] = False,
    root: Root = None,
) -> None:
    """Counters and iteration back to zero (rotation numbers go on); specs keep their status."""
    from ralph.commands.reset import reset as reset_command

    handoffs, history, guardrails, lanes = (
        x or all_ for x in (handoffs, history, guardrails, lanes)
    )
    with reported_errors():
        code = reset_command(
            project_root(root),
            handoffs=handoffs,
            history=history,
            guardrails=guardrails,
            lanes=lanes,
            yes=yes,
        )
    raise typer.Exit(code)


@app.command()
def accept(
    spec: Annotated[str, typer.Option("--spec", "-s", help="Only this spec (a path).")] = "",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Accept without asking.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", "--list", help="Only list.")] = False,
    root: Root = None,
) -> None:
    """Show what an agent changed of the checks or the tests, and accept it as a person."""
    from ralph.commands.accept import accept as accept_command

    with reported_errors():
        raise typer.Exit(accept_command(project_root(root), spec=spec, yes=yes, dry_run=dry_run))


SealSpec = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--spec", "-s", help=helptext.SEAL_SPEC),
]


@app.command()
def seal(
    files: Annotated[Optional[list[str]], typer.Argument(help="Test files to seal.")] = None,  # noqa: UP045
    spec: SealSpec = None,
    even_if_in_git: Annotated[bool, _opt("--even-if-in-git")] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the sealed files.")] = False,
    json_: JsonFlag = False,
    root: Root = None,
) -> None:
    """Move acceptance tests out of the agent's sight: run at every DONE that counts."""
    from ralph.commands.seal import command

    with reported_errors():
        raise typer.Exit(command(project_root(root), files, spec, even_if_in_git, list_, json_))


@app.command()
def unseal(file: Annotated[str, typer.Argument(help="A sealed file.")], root: Root = None) -> None:
    """Put a sealed test file back in the work tree, and forget it."""
    from ralph.commands.seal import unseal as unseal_command

    with reported_errors():
        raise typer.Exit(unseal_command(project_root(root), file))


def main(argv: list[str] | None = None) -> Any:
    return app(args=argv, prog_name="ralph")
