"""`ralph run`: config, agent pool, display and reports around the loop."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ralph.commands.runreports import ReportSink, finish_reports, own_files
from ralph.errors import ExitCode, RalphError
from ralph.run.events import Event, Notice, RunEnded, RunStarted
from ralph.run.settings import RunSettings, resolve

if TYPE_CHECKING:
    from ralph.agents.member import Member
    from ralph.run.escalation import Choice, Decide, Escalation
    from ralph.run.options import RunOptions
    from ralph.store.person.config import RalphConfig
    from ralph.ui.display import Display
    from ralph.ui.webhook import Webhook


def run(root: Path, options: Mapping[str, Any], *, continue_: bool = False) -> int:
    """Run with the settings the command line gives (`options`, by parameter name: see
    runoptions.given_settings), and with `continue_` the saved run's for the rest; the exit
    code."""
    from ralph.commands.runoptions import given_settings, kept_settings

    kept = kept_settings(root, given_settings(options), continue_)
    return run_project(root, kept, continues=continue_)


def run_project(root: Path, kept: Mapping[str, Any], *, continues: bool = False) -> int:
    """Run with `kept`, the settings given (and saved): ralph.yaml's come after them;
    `continues` (`--continue`): a run that was killed goes on as this one."""
    from ralph.store.disk.files import check_report_path
    from ralph.store.person.config import RalphConfig

    # The reports and the notification are never ralph.yaml's: known before it is read, they
    # are written however the run ends (a bad ralph.yaml included).
    asked = resolve(kept, RalphConfig())
    for kind in ("junit", "json"):
        if kind in asked.reports:  # refused before any agent runs (and no report is written)
            check_report_path(asked.reports[kind], root)
    sink = ReportSink()
    if asked.notify:  # a desktop notification at the end, whatever ralph.yaml says
        from ralph.ui import notify

        sink.register(notify, notify.NAME)
    code: int = int(ExitCode.ERROR)
    reason = "ralph stopped with an error"
    try:
        code = _run(root, kept, sink, continues)
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
        finish_reports(root, asked, sink, code, reason)


def _run(root: Path, kept: Mapping[str, Any], sink: ReportSink, continues: bool) -> int:
    from ralph.commands.plugins import every_plugin
    from ralph.commands.pool import build_pool
    from ralph.commands.runoptions import save_run_options
    from ralph.commands.sandboxing import start_sandbox
    from ralph.commands.webhooks import NAME, Told, open_webhook
    from ralph.process.allowlist import AllowList
    from ralph.process.containment import kept as sandbox_kept
    from ralph.process.launcher import Launcher
    from ralph.process.request import Confinement
    from ralph.run.start import run_loop
    from ralph.store.person import settings as accepted
    from ralph.ui.display import make_display

    # ralph.yaml as a person accepted it: an agent's edit waits for `ralph accept`
    settled = accepted.settle(root)
    config = settled.config()
    run_settings = resolve(kept, config)
    sink.webhook = hook = open_webhook(config)
    if hook is not None:  # told through the observer hooks, as any plugin is
        sink.register(Told(hook, root.name), NAME)
    every_plugin(root, config)  # the person's plugins (their agents too), before any is named
    members = build_pool(root, kept, config)
    opts = replace(run_options(root, run_settings, config, members, hook), continues=continues)
    # Before any agent or check runs: a sandbox that cannot start stops the run here.
    box = start_sandbox(root, run_settings.sandbox, config.sandbox, members)
    # what every process of the run gets of ralph's environment: never the webhook's URL
    url = config.notify.webhook_url(dict(os.environ))
    allow = AllowList(frozenset(config.sandbox.env), withheld=(url,) if url else ())
    launcher = Launcher(Confinement(box, allow))  # handed to every process of the run
    output = run_settings.output
    with (
        sandbox_kept(box),
        make_display(
            stream=sys.stdout,
            force_plain=output == "plain",
            no_color=output == "no-color",
            verbose=run_settings.verbose,
            quiet=run_settings.quiet,
            log_format="json" if output == "json" else "text",
        ) as display,
    ):

        def emit(event: Event) -> None:
            sink.handle(event)
            if isinstance(event, RunStarted):
                # Recorded once the run holds the project: a refused run leaves them alone.
                accepted.begin(root, settled)
                save_run_options(root, kept)
            elif isinstance(event, RunEnded):
                accepted.finish(root)  # what the agent left in ralph.yaml stays held
            display.handle(event)
            if isinstance(event, RunStarted) and settled.note is not None:
                display.handle(Notice("warning", settled.note))
            if isinstance(event, RunStarted) and box is not None:
                display.handle(Notice("info", box.describe()))
            if isinstance(event, RunStarted) and run_settings.parallel <= 1:
                unused = _unused_lanes(root)
                if unused is not None:
                    display.handle(Notice("warning", unused))

        headless = run_settings.headless
        decide = _decider(display, run_settings.on_escalation, forced=headless)
        try:
            return run_loop(replace(opts, decide=decide, launcher=launcher), emit)
        finally:
            if opts.observers is not None:
                opts.observers.close()


def run_options(
    root: Path,
    settings: RunSettings,
    config: RalphConfig,
    members: tuple[Member, ...],
    hook: Webhook | None,
) -> RunOptions:
    """What the loop is asked to do: this run's settings (already past ralph.yaml's), ralph.yaml
    for what only it says, and what is built from them (`hook`: the run's webhook, whose URL
    no output may show; it hears the run as an observer plugin)."""
    from ralph.commands.plugins import observers
    from ralph.commands.pool import build_policy
    from ralph.run.options import RunOptions

    return RunOptions(
        root=root,
        pool=members,
        settings=settings,
        config=config,
        policy=build_policy(settings, config),
        own_files=own_files(root, tuple(settings.reports.values())),
        observers=observers(root, config, settings.otel),
        secrets=frozenset() if hook is None else hook.secrets,
    )


def _unused_lanes(root: Path) -> str | None:
    """One line when an earlier --parallel run left lanes that this run, in the project's own
    tree, will not use: how to resume them or discard them. (Not `--continue`: this run's
    options are the ones it would continue from now.)"""
    from ralph.store.live.openlanes import open_lanes

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


def _decider(display: Display, headless_choice: str, *, forced: bool = False) -> Decide:
    """On a terminal ask the user; headless (--output plain or json, CI, no terminal on stdin
    or stdout) take the configured choice: a headless run never prompts."""
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
