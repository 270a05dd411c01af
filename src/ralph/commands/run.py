"""`ralph run`: config, agent pool, display and reports around the loop."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ralph.commands.runoptions import RunRequest, load_run_options, run_request, save_run_options
from ralph.errors import ExitCode, RalphError
from ralph.run.events import Event, RunStarted, SpecRow
from ralph.store.workspace import STATE_DIR
from ralph.ui.runreport import RunReport

if TYPE_CHECKING:
    from ralph.run.escalation import Choice, Decide, Escalation
    from ralph.ui.display import Display


def run(root: Path, options: dict[str, Any]) -> int:
    """Run with these options (as given, or merged by --continue); the exit code."""
    return run_project(run_request(root, options))


class _ReportSink:
    """Folds the loop's events into a RunReport for the end-of-run reports."""

    def __init__(self) -> None:
        self.report = RunReport()
        self.last_matrix: tuple[SpecRow, ...] | None = None

    def handle(self, event: Event) -> None:
        from ralph.ui.runreport import apply_event

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
    from ralph.commands.pool import build_policy, build_pool
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
    from ralph.ui.runreport import finish

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
