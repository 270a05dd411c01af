"""The command line: parses options, calls the core, renders, maps errors to exit codes.

Only this module imports Typer. Everything heavy is imported inside the command that needs it,
so `ralph --help` and `ralph status` start fast.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ralph import __version__
from ralph.errors import RalphError, report

app = typer.Typer(
    name="ralph",
    help="Run an AI coding agent in a loop until every spec is verified (0/3 -> 3/3).",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


class EscalationChoice(str, Enum):
    abort = "abort"
    accept = "accept"
    continue_ = "continue"


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
    from ralph.commands.project import init_project

    with reported_errors():
        for line in init_project(root.resolve(), force=force):
            print(line)


class LogFormat(str, Enum):
    text = "text"
    json = "json"


# `ralph run` options that --continue does not take from the saved run.
_NOT_SAVED = frozenset({"root", "continue_"})
_PATH_OPTIONS = frozenset({"junit", "report_json"})
# Options of which one given again replaces the others' saved values.
_EXCLUSIVE = (("agent", "agent_command"), ("quiet", "verbose"))


def _run_options(ctx: typer.Context, continue_: bool, root: Path) -> dict[str, Any]:
    """The options this run uses: as given, and with --continue the saved ones for the rest."""
    from ralph.commands.run import load_run_options

    given = {
        k: v.value if isinstance(v, Enum) else v
        for k, v in ctx.params.items()
        if k not in _NOT_SAVED
    }
    for name in _PATH_OPTIONS:  # saved absolute, so --continue from anywhere writes the same file
        if isinstance(given.get(name), (str, Path)):
            given[name] = str(Path(given[name]).absolute())
    if not continue_:
        return given

    def defaulted(name: str) -> bool:
        # By name: Typer may bring its own copy of Click, whose enum is not importable as such.
        source = ctx.get_parameter_source(name)
        return getattr(source, "name", "DEFAULT") in ("DEFAULT", "DEFAULT_MAP")

    saved = load_run_options(root)
    saved = _checked_options(ctx, {k: v for k, v in saved.items() if k in given and defaulted(k)})
    merged = dict(given)
    for name, value in saved.items():
        if name in merged and defaulted(name):
            merged[name] = value  # options given again override the saved ones
    for group in _EXCLUSIVE:
        chosen = [name for name in group if not defaulted(name)]
        if chosen:  # `--agent demo` again replaces a saved --agent-command, and the like
            for name in group:
                if name not in chosen:
                    merged[name] = given[name]
    return merged


def _check_pool_options(options: dict[str, Any]) -> None:
    from ralph.errors import UsageError
    from ralph.rules.pool import ROTATIONS

    rotation, max_cost = options.get("rotation"), options.get("max_cost")
    if rotation is not None and rotation not in ROTATIONS:
        raise UsageError(
            f"--rotation {rotation}: unknown policy", f"use one of: {', '.join(ROTATIONS)}"
        )
    if max_cost is not None and not max_cost > 0:
        raise UsageError(f"--max-cost {max_cost}: must be more than 0", "give a USD amount")


def _checked_options(ctx: typer.Context, saved: dict[str, Any]) -> dict[str, Any]:
    """Saved options converted by their own option types: a hand-edited file with a wrong
    value is one clear error, not a traceback later."""
    from ralph.errors import StateError

    params = {p.name: p for p in ctx.command.params}
    checked: dict[str, Any] = {}
    for name, value in saved.items():
        param = params.get(name)
        if param is None or name in _NOT_SAVED:
            continue  # an option this ralph does not have (any more): ignored
        try:
            converted = value if value is None else param.type_cast_value(ctx, value)
        except Exception as exc:  # Click's BadParameter and whatever a type raises
            raise StateError(
                f".ralph/run-options.json: option {name}: {value!r} is not valid ({exc})",
                "fix or delete the file, or give the options again without --continue",
            ) from None
        checked[name] = converted.value if isinstance(converted, Enum) else converted
    return checked


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
        typer.Option("--max-iterations", "-n", min=1, help="Rotations this run may make."),
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
        typer.Option("--timeout", min=0.001, help="Seconds one rotation may take."),
    ] = None,
    idle_timeout: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option("--idle-timeout", min=0.001, help="Seconds the agent may print nothing."),
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
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")] = False,
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
    root: Root = Path(),
) -> None:
    """Run the agent, one fresh rotation at a time, until every spec is at 3/3."""
    from ralph.commands.run import RunRequest, run_project

    if quiet and verbose:
        raise typer.BadParameter("--quiet and --verbose contradict each other; give one")
    with reported_errors():
        root = root.resolve()
        options = _run_options(ctx, continue_, root)
        _check_pool_options(options)
        request = {k: v for k, v in options.items() if k in RunRequest.__dataclass_fields__}
        for name in _PATH_OPTIONS:
            if request.get(name) is not None:
                request[name] = Path(request[name])
        code = run_project(RunRequest(root=root, saved_options=options, **request))
    raise typer.Exit(code)


@app.command()
def status(
    json_: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    watch: Annotated[
        bool, typer.Option("--watch", "-w", help="Redraw the matrix until Ctrl-C.")
    ] = False,
    interval: Annotated[
        float, typer.Option("--interval", min=0.1, help="Seconds between redraws (--watch).")
    ] = 2.0,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours (as NO_COLOR).")] = False,
    log: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option("--log", min=1, help="Also show the last N worklog events."),
    ] = None,
    root: Root = Path(),
) -> None:
    """Show the spec matrix, the iteration and whether a run is live."""
    from ralph.commands.project import print_status

    if watch and json_:
        raise typer.BadParameter("--watch redraws a table; for JSON poll ralph status --json")
    with reported_errors():
        if not watch:
            print_status(root.resolve(), as_json=json_, no_color=no_color, log=log)
            return
        from ralph.commands.operate import watch_status

        try:
            watch_status(root.resolve(), interval=interval, no_color=no_color)
        except KeyboardInterrupt:
            return  # Ctrl-C is how a watch ends: not an error


def _page(text: str, *, pager: bool) -> None:
    """Long output goes through a pager on a terminal (never in a pipe, CI or tests)."""
    import os
    import shutil
    import sys

    from ralph.ui.terminal import ci_environment, is_terminal

    rows = shutil.get_terminal_size().lines
    if pager and is_terminal(sys.stdout) and not ci_environment() and text.count("\n") >= rows:
        import pydoc

        os.environ.setdefault("LESS", "FRX")  # quit if one screen, keep colours, no clearing
        pydoc.pager(text)
        return
    sys.stdout.write(text)


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
    import json

    from ralph.commands import history as h

    with reported_errors():
        root = root.resolve()
        if rotation is not None:
            _row, path = h.find_log(root, rotation)
            _page(h.log_text(path, tail), pager=pager)
            return
        if tail is not None:
            raise typer.BadParameter(
                "--tail goes with a rotation number: ralph history 12 --tail 50"
            )
        rows = h.list_rotations(root, spec)
        if json_:
            print(json.dumps([h.rotation_data(r) for r in rows]))
        elif not rows:
            where = f" of {spec}" if spec else ""
            print(f"no rotations{where} recorded yet")
        else:
            _page(h.render_table(rows), pager=pager)


@app.command()
def inspect(
    follow: Annotated[
        bool,
        typer.Option(
            "--follow", "-f", help="Stream the live rotation's output until the run ends."
        ),
    ] = False,
    json_: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    root: Root = Path(),
) -> None:
    """Is a run live, and what is it doing: pid, spec, rotation, since when, which agent."""
    import json
    import sys

    from ralph.commands import operate

    with reported_errors():
        root = root.resolve()
        if follow:
            operate.follow(root, sys.stdout)
            return
        data = operate.inspect_data(root)
        if json_:
            print(json.dumps(data))
        else:
            print("\n".join(operate.inspect_lines(data)))


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
    from ralph.commands.operate import cancel_run

    with reported_errors():
        for line in cancel_run(root.resolve(), now=now, wait=wait):
            print(line, flush=True)


@app.command()
def agents(
    json_: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    root: Root = Path(),
) -> None:
    """List the built-in agents: installed or not (with the version), and how each is run."""
    import json

    from ralph.commands.agents import list_agents, render

    with reported_errors():
        rows = list_agents(root.resolve())
        if json_:
            print(json.dumps({"agents": rows}))
        else:
            print(render(rows), end="")


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
    from ralph.commands.project import reset_project

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
