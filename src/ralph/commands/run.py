"""`ralph run` below the option parsing: config, agent pool, display and reports around the loop."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ralph.errors import ExitCode, RalphError, StateError, UsageError
from ralph.run.events import Event, RunStarted, SpecRow
from ralph.store.workspace import STATE_DIR
from ralph.ui.reports import RunReport

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ralph.agents.member import Member
    from ralph.rules.pool import PoolPolicy
    from ralph.store.config import AgentConfig, RalphConfig

OPTIONS_FILE = "run-options.json"

if TYPE_CHECKING:
    from ralph.run.escalation import Choice, Decide, Escalation
    from ralph.ui.display import Display


@dataclass(frozen=True)
class RunRequest:
    root: Path
    # Named as the command-line options (saved for --continue): each may be repeated, in order.
    agent: Sequence[str] | None = None  # --agent
    agent_command: Sequence[str] | None = None  # --agent-command
    model: str | None = None  # --model: for every agent of this run
    max_iterations: int | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    rotation: str | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    plain: bool = False  # headless forced (`--headless`, or its older name `--plain`)
    no_color: bool = False
    verbose: bool = False
    quiet: bool = False
    log_format: str = "text"  # text | json
    junit: Path | None = None
    report_json: Path | None = None
    notify: bool = False
    on_escalation: str | None = None  # abort | accept | continue, for a headless run
    # The options as given (after --continue merged the saved ones): saved in .ralph/ once
    # the run has started, for the next `ralph run --continue`.
    saved_options: dict[str, Any] | None = field(default=None, compare=False)


def save_run_options(root: Path, options: dict[str, Any]) -> None:
    from ralph.store.files import write_json_atomic

    write_json_atomic(
        root / STATE_DIR / OPTIONS_FILE,
        {"schema_version": 1, "saved_at": time.time(), "options": options},
    )


def load_run_options(root: Path) -> dict[str, Any]:
    """The options the last run started with; an error when there are none."""
    from ralph.store.files import load_json

    path = root / STATE_DIR / OPTIONS_FILE
    data = load_json(path, f"{STATE_DIR}/{OPTIONS_FILE}")
    if data is None:
        raise UsageError(
            f"nothing to continue: no saved run options in {root / STATE_DIR}",
            "start a run with ralph run (its options are saved then), or drop --continue",
        )
    if not isinstance(data, dict) or not isinstance(data.get("options"), dict):
        raise StateError(
            f"{STATE_DIR}/{OPTIONS_FILE}: expected an object with 'options'",
            "delete the file and give the options again",
        )
    options: dict[str, Any] = data["options"]
    return options


class _ReportSink:
    """Folds the loop's events into a RunReport for the end-of-run reports."""

    def __init__(self) -> None:
        self.report = RunReport()
        self.last_matrix: tuple[SpecRow, ...] | None = None

    def handle(self, event: Event) -> None:
        from ralph.ui.reports import apply_event

        self.report = apply_event(self.report, event, time.time())
        matrix = getattr(event, "matrix", None)
        if isinstance(matrix, tuple):
            self.last_matrix = matrix


def run_project(req: RunRequest) -> int:
    sink = _ReportSink()
    code: int = int(ExitCode.ERROR)
    reason = "ralph stopped with an error"
    try:
        code = _run(req, sink.handle)
        return code
    except RalphError as exc:
        code, reason = int(exc.exit_code), exc.message
        raise
    except KeyboardInterrupt:
        code, reason = int(ExitCode.INTERRUPTED), "interrupted"
        raise
    except OSError as exc:
        reason = f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        raise
    finally:
        _finish(req, sink, code, reason)


def _run(req: RunRequest, observe: Callable[[Event], None]) -> int:
    from ralph.run.loop import RunOptions, run_loop
    from ralph.store.config import load_config
    from ralph.ui.display import make_display

    config = load_config(req.root)
    members = build_pool(req, config)
    opts = RunOptions(
        root=req.root,
        pool=members,
        policy=build_policy(req, config),
        max_iterations=req.max_iterations or config.max_iterations,
        max_cost=req.max_cost if req.max_cost is not None else config.max_cost,
        max_tokens=req.max_tokens if req.max_tokens is not None else config.max_tokens,
        own_files=own_files(req.root, (req.junit, req.report_json, *_last_reports(req.root))),
        final_verification=config.final_verification,
        max_verification_failures=config.max_verification_failures,
        test_command=config.test_command,
        test_timeout=config.test_timeout,
        breaker_threshold=config.breaker.threshold,
        breaker_cooldown=config.breaker.cooldown,
        latency_budget_ms=config.latency_budget_ms,
    )
    with make_display(
        stream=sys.stdout,
        force_plain=req.plain,
        no_color=req.no_color,
        verbose=req.verbose,
        quiet=req.quiet,
        log_format="json" if req.log_format == "json" else "text",
    ) as display:

        def emit(event: Event) -> None:
            observe(event)
            if isinstance(event, RunStarted) and req.saved_options is not None:
                # Saved once the run holds the project: a refused run leaves them alone.
                save_run_options(req.root, req.saved_options)
            display.handle(event)

        decide = _decider(display, req.on_escalation or config.on_escalation, forced=req.plain)
        return run_loop(replace(opts, decide=decide), emit)


def _decider(display: Display, headless_choice: str, *, forced: bool = False) -> Decide:
    """On a terminal ask the user; headless (--headless, CI, no terminal on stdin or stdout)
    take the configured choice: a headless run never prompts."""
    from ralph.run.escalation import ask, describe
    from ralph.ui.terminal import is_headless, is_terminal

    def decide(e: Escalation) -> Choice:
        if is_headless(sys.stdin, forced=forced) or not is_terminal(sys.stdout):
            print(describe(e), file=sys.stderr, end="")
            print(f"headless: --on-escalation {headless_choice}", file=sys.stderr, flush=True)
            return cast("Choice", headless_choice)
        display.close()  # a live panel would draw over the question; the next event restores it
        return ask(e, sys.stdin, sys.stderr)

    return decide


def _last_reports(root: Path) -> tuple[Path | None, ...]:
    """The reports the last run wrote (its saved options): written after its last snapshot."""
    try:
        saved = load_run_options(root)
    except RalphError:
        return ()
    return tuple(
        Path(saved[name]) if isinstance(saved.get(name), str) else None
        for name in ("junit", "report_json")
    )


def own_files(root: Path, paths: tuple[Path | None, ...]) -> tuple[str, ...]:
    """The report files that lie inside the project, relative to it, forward slashes."""
    found: list[str] = []
    base = root.resolve()
    for path in paths:
        if path is None:
            continue
        try:
            found.append(path.resolve().relative_to(base).as_posix())
        except ValueError:  # outside the project: no snapshot sees it
            continue
    return tuple(found)


def _final_matrix(req: RunRequest, sink: _ReportSink) -> tuple[SpecRow, ...]:
    if sink.last_matrix is not None:
        return sink.last_matrix
    from ralph.specs.discovery import find_spec_paths
    from ralph.store.state import load_state

    try:
        state = load_state(req.root / STATE_DIR / "state.json")
        if state.specs:
            return tuple(
                SpecRow(s.path, s.done_count, s.last_status, s.modified_files) for s in state.specs
            )
        # Never run here: the specs on disk, none of them processed, so a report lists them.
        return tuple(SpecRow(path, 0, None, False) for path in find_spec_paths(req.root))
    except (RalphError, OSError):
        return ()


def _finish(req: RunRequest, sink: _ReportSink, code: int, reason: str) -> None:
    """Reports and the notification: after every run, however it ended; never raises."""
    from ralph.ui.reports import finish

    report = finish(
        sink.report,
        exit_code=code,
        reason=reason,
        now=time.time(),
        matrix=_final_matrix(req, sink) if sink.report.exit_code is None else None,
    )
    write_reports(report, junit=req.junit, report_json=req.report_json)
    if req.notify:
        from ralph.ui.notify import notify_run_end

        notify_run_end(report)


def write_reports(report: RunReport, *, junit: Path | None, report_json: Path | None) -> None:
    """Each report atomically (a CI step never reads half of one); a report that cannot be
    written is said on stderr and does not change the run's exit code."""
    import json
    import os

    from ralph.store.files import write_text_atomic
    from ralph.ui.reports import junit_xml, markdown_summary, report_data

    outputs: list[tuple[Path, Callable[[], str]]] = []
    if junit is not None:
        outputs.append((junit, lambda: junit_xml(report)))
    if report_json is not None:
        outputs.append((report_json, lambda: json.dumps(report_data(report), indent=2) + "\n"))
    for path, render in outputs:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, render())
        except OSError as exc:
            print(f"error: cannot write the report {path}: {exc.strerror or exc}", file=sys.stderr)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        try:
            # Appended, as GitHub expects: other steps of the job write to the same file.
            with Path(summary).open("a", encoding="utf-8") as f:
                f.write(markdown_summary(report))
        except OSError as exc:
            print(
                f"error: cannot append to GITHUB_STEP_SUMMARY ({summary}): {exc.strerror or exc}",
                file=sys.stderr,
            )


def build_policy(req: RunRequest, config: RalphConfig) -> PoolPolicy:
    from ralph.rules.pool import ROTATIONS, PoolPolicy

    p = config.pool
    rotation = p.rotation
    if req.rotation is not None:
        rotation = next(r for r in ROTATIONS if r == req.rotation)  # the CLI checked it
    return PoolPolicy(
        rotation=rotation,
        fresh_eyes=p.fresh_eyes,
        backoff=p.backoff,
        max_failures=p.max_failures,
        max_wait=p.max_wait,
    )


def build_pool(req: RunRequest, config: RalphConfig) -> tuple[Member, ...]:
    """The agents of this run, each with its own limits; every executable checked up front.

    Agents named on the command line replace those of ralph.yaml: built-in agents first, in
    the order given, then custom commands. `--agent NAME` picks the ralph.yaml entry of that
    name when there is one (so its command, limits and environment come along); any other
    agent takes the limits and environment of the `agent:` block. Names are made unique
    (`python`, `python#2`) because benching, eviction and cost are kept per agent.
    """
    from ralph.agents.member import Member
    from ralph.agents.registry import REGISTRY, make_agent

    # (settings, name, command, whether the entry's model: and args: belong to this agent)
    chosen: list[tuple[AgentConfig, str | None, str | list[str] | None, bool]] = []
    names, commands = _listed(req.agent), _listed(req.agent_command)
    if names or commands:
        named = {m.name: m for m in config.members if m.name is not None}
        # `--agent NAME --agent-command CMD`, NAME no agent ralph knows: NAME names CMD
        # (in order, one name per command), as it always has
        labels = [n for n in names if n not in named and n not in REGISTRY]
        if not labels or len(labels) > len(commands):
            labels = []
        for wanted in names:
            entry = named.get(wanted)
            if entry is not None:
                chosen.append((entry, entry.name, entry.command, True))
            elif wanted not in labels:
                chosen.append((config.agent, wanted, None, False))
        chosen.extend(
            (config.agent, labels[i] if i < len(labels) else None, command, False)
            for i, command in enumerate(commands)
        )
    else:
        chosen = [(m, m.name, m.command, True) for m in config.members] or [
            (config.agent, None, None, True)
        ]

    members: list[Member] = []
    taken: set[str] = set()
    for entry, name, command, own in chosen:
        model = req.model if req.model is not None else entry.model if own else None
        agent = make_agent(name, command, entry.env, model, entry.args if own else [])
        agent.resolve(req.root)  # a missing agent is an error before anything runs
        base, n = agent.name, 1
        while agent.name in taken:
            n += 1
            agent.name = f"{base}#{n}"
        taken.add(agent.name)
        members.append(
            Member(
                agent=agent,
                timeout=req.timeout if req.timeout is not None else entry.timeout,
                idle_timeout=req.idle_timeout
                if req.idle_timeout is not None
                else entry.idle_timeout,
                kill_grace=entry.kill_grace,
            )
        )
    return tuple(members)


def _listed(value: Sequence[str] | str | None) -> tuple[str, ...]:
    """A repeatable option's values; a single string is one value (run options saved by a
    ralph from before pools hold `--agent` as a string)."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)
