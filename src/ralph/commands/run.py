"""`ralph run`: config, agent pool, display and reports around the loop."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ralph.commands.runoptions import RunRequest, run_request, save_run_options
from ralph.commands.runreports import ReportSink, finish_reports, own_files
from ralph.errors import ExitCode, RalphError
from ralph.run.events import Event, Notice, RunEnded, RunStarted

if TYPE_CHECKING:
    from ralph.run.escalation import Choice, Decide, Escalation
    from ralph.ui.display import Display


def run(root: Path, options: dict[str, Any]) -> int:
    """Run with these options (as given, or merged by --continue); the exit code."""
    return run_project(run_request(root, options))


def run_project(req: RunRequest) -> int:
    from ralph.store.files import check_report_path

    for report in (req.junit, req.report_json):
        if report is not None:  # refused before any agent runs (and no report is written)
            check_report_path(report, req.root)
    sink = ReportSink()
    code: int = int(ExitCode.ERROR)
    reason = "ralph stopped with an error"
    try:
        code = _run(req, sink)
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
        finish_reports(req, sink, code, reason)


def _run(req: RunRequest, sink: ReportSink) -> int:
    from ralph.commands.pool import build_policy, build_pool
    from ralph.commands.sandboxing import start_sandbox
    from ralph.commands.webhooks import on_escalation, on_fact, open_webhook
    from ralph.process.allowlist import AllowList
    from ralph.process.containment import contain
    from ralph.run.options import RunOptions
    from ralph.run.start import run_loop
    from ralph.store import settings
    from ralph.ui.display import make_display

    # ralph.yaml as a person accepted it: an agent's edit waits for `ralph accept`
    settled = settings.settle(req.root)
    config = settled.config()
    sink.webhook = hook = open_webhook(config)
    members = build_pool(req, config)
    opts = RunOptions(
        root=req.root,
        pool=members,
        policy=build_policy(req, config),
        max_iterations=req.max_iterations or config.max_iterations,
        max_cost=req.max_cost if req.max_cost is not None else config.max_cost,
        max_tokens=req.max_tokens if req.max_tokens is not None else config.max_tokens,
        own_files=own_files(req.root, req.reports),
        final_verification=config.final_verification,
        max_verification_failures=config.max_verification_failures,
        test_command=config.test_command,
        test_timeout=config.test_timeout,
        breaker_threshold=config.breaker.threshold,
        breaker_cooldown=config.breaker.cooldown,
        latency_budget_ms=config.latency_budget_ms,
        patience=config.convergence.patience,
        test_globs=tuple(config.tests.paths) if config.tests.paths is not None else None,
        only=tuple(req.spec or ()),
        parallel=req.parallel or config.parallel,
        watch=None if hook is None else partial(on_fact, hook, req.root),
        secrets=frozenset() if hook is None else hook.secrets,
    )
    # Before any agent or check runs: a sandbox that cannot start stops the run here.
    box = start_sandbox(req.root, req.sandbox, config.sandbox, members)
    # what every process of the run gets of ralph's environment: never the webhook's URL
    url = config.notify.webhook_url(dict(os.environ))
    allow = AllowList(frozenset(config.sandbox.env), withheld=(url,) if url else ())
    with (
        contain(box, allow),
        make_display(
            stream=sys.stdout,
            force_plain=req.plain,
            no_color=req.no_color,
            verbose=req.verbose,
            quiet=req.quiet,
            log_format="json" if req.log_format == "json" else "text",
        ) as display,
    ):

        def emit(event: Event) -> None:
            sink.handle(event)
            if isinstance(event, RunStarted):
                # Recorded once the run holds the project: a refused run leaves them alone.
                settings.begin(req.root, settled)
                if req.saved_options is not None:
                    save_run_options(req.root, req.saved_options)
            elif isinstance(event, RunEnded):
                settings.finish(req.root)  # what the agent left in ralph.yaml stays held
            display.handle(event)
            if isinstance(event, RunStarted) and settled.note is not None:
                display.handle(Notice("warning", settled.note))
            if isinstance(event, RunStarted) and box is not None:
                display.handle(Notice("info", box.describe()))
            if isinstance(event, RunStarted) and opts.parallel <= 1:
                unused = _unused_lanes(req.root)
                if unused is not None:
                    display.handle(Notice("warning", unused))

        decide = _decider(display, req.on_escalation or config.on_escalation, forced=req.plain)
        if hook is not None:
            decide = _told(decide, partial(on_escalation, hook, req.root))
        return run_loop(replace(opts, decide=decide), emit)


def _unused_lanes(root: Path) -> str | None:
    """One line when an earlier --parallel run left lanes that this run, in the project's own
    tree, will not use: how to resume them or discard them. (Not `--continue`: this run's
    options are the ones it would continue from now.)"""
    from ralph.store.openlanes import open_lanes

    found = open_lanes(root)
    if not found:
        return None
    n = len(found)
    what = "1 lane" if n == 1 else f"{n} lanes"
    return (
        f"{what} of an earlier --parallel run {'is' if n == 1 else 'are'} open and not used by "
        f"this run: resume with `ralph run --parallel {max(n, 2)}`, or discard with "
        "`ralph reset --lanes`"
    )


def _told(decide: Decide, tell: Callable[[Escalation], None]) -> Decide:
    """`decide`, once the webhook has been told that a person is needed."""

    def told(e: Escalation) -> Choice:
        tell(e)
        return decide(e)

    return told


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
