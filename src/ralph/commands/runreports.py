"""The reports of a run (JUnit XML, JSON, the GitHub step summary), then `ralph_run_reported` to
the plugins (ralph's notification and webhook among them): folded from the run's events,
written after every run however it ended, and kept out of snapshots."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.errors import RalphError, UsageError
from ralph.rules.text.printable import printable
from ralph.run.events import Event, SpecRow
from ralph.run.settings import RunSettings
from ralph.store.disk.workspace import STATE_DIR
from ralph.ui.runreport import RunReport

if TYPE_CHECKING:
    from ralph.ui.webhook import Webhook


class ReportSink:
    """Folds the loop's events into a RunReport for the end-of-run reports."""

    def __init__(self) -> None:
        self.report = RunReport()
        self.last_matrix: tuple[SpecRow, ...] | None = None
        self.webhook: Webhook | None = None  # set once ralph.yaml has been read
        self.own: list[str] = []  # ralph's own plugins made for this run, dropped at its end

    def register(self, plugin: object, name: str) -> None:
        """One of ralph's own plugins, for this run (until its reports are written)."""
        from ralph.plugins.manager import plugins

        plugins().register_own(plugin, name)
        self.own.append(name)

    def handle(self, event: Event) -> None:
        from ralph.ui.runreport import apply_event

        self.report = apply_event(self.report, event, time.time())
        matrix = getattr(event, "matrix", None)
        if isinstance(matrix, tuple):
            self.last_matrix = matrix


def own_files(root: Path, paths: tuple[Path | None, ...]) -> tuple[str, ...]:
    """ralph's own report files inside the project, relative to it, forward slashes: this
    run's, and the ones earlier runs wrote that still hold what they wrote (never a change,
    never uncommitted work)."""
    from ralph.store.records.ownreports import own_reports

    found: list[str] = list(own_reports(root))
    base = root.resolve()
    for path in paths:
        if path is None:
            continue
        try:
            rel = path.resolve().relative_to(base).as_posix()
            found += [rel] if rel not in found else []
        except ValueError:  # outside the project: no snapshot sees it
            continue
    return tuple(found)


def _final_matrix(root: Path, sink: ReportSink) -> tuple[SpecRow, ...]:
    if sink.last_matrix is not None:
        return sink.last_matrix
    from ralph.specs.discovery import find_spec_paths
    from ralph.store.records.state import load_state

    try:
        state = load_state(root / STATE_DIR / "state.json")
        if state.specs:
            return tuple(
                SpecRow(s.path, s.done_count, s.last_status, s.modified_files, s.tests)
                for s in state.specs
            )
        # Never run here: the specs on disk, none of them processed, so a report lists them.
        return tuple(SpecRow(path, 0, None, False) for path in find_spec_paths(root))
    except (RalphError, OSError):
        return ()


def finish_reports(
    root: Path, settings: RunSettings, sink: ReportSink, code: int, reason: str
) -> None:
    """Reports and the notification: after every run, however it ended; never raises."""
    from ralph.ui.runreport import finish, with_earlier

    started = sink.report.started_at is not None  # RunStarted came: the worklog has this run
    report = finish(
        sink.report,
        exit_code=code,
        reason=reason,
        now=time.time(),
        matrix=_final_matrix(root, sink) if sink.report.exit_code is None else None,
    )
    if started:  # a run that continued a killed one reports both parts
        report = with_earlier(report, _continued(root))
    files = settings.reports
    written = write_reports(
        report, junit=files.get("junit"), report_json=files.get("json"), project=root
    )
    html = files.get("html")
    if html is not None and write_html_report(root, html, report, started=started):
        written.append(html)
    from ralph.store.records.ownreports import record_reports

    try:
        record_reports(root, written)
    except OSError as exc:
        print(f"error: cannot record the reports written: {exc.strerror or exc}", file=sys.stderr)
    from ralph.commands.runreported import tell_reported

    tell_reported(root, report, sink.webhook, sink.own)


def _continued(root: Path) -> list[dict[str, Any]]:
    """The records of the killed run the latest run continued (none when it continued none)."""
    from ralph.store.disk.workspace import Workspace
    from ralph.store.records.runs import runs
    from ralph.store.records.worklog import read_worklog

    found = runs(read_worklog(Workspace(root).worklog))
    last = found[-1] if found else []
    starts = [n for n, rec in enumerate(last) if rec.get("event") == "run_start"]
    return last[: starts[-1]] if len(starts) > 1 else []


def write_html_report(
    root: Path,
    path: Path,
    report: RunReport | None = None,
    *,
    started: bool = True,
    run_id: str | None = None,
    job: bool = False,
) -> bool:
    """The HTML report of the latest run (what .ralph/ recorded; `report` says how it ended
    when the worklog does not; a run that never `started` is that outcome alone, not the run
    before it); said on stderr when it cannot be written, never raised: a report must not
    change how a run ends."""
    from ralph.store.disk.files import write_text_through
    from ralph.store.records.runstory import RunRecords, read_run
    from ralph.ui.htmlreport import render_html

    ended = None
    if report is not None and report.exit_code is not None:
        ended = (report.exit_code, report.reason or "")
    try:
        run = (
            read_run(root, run_id, latest=report is not None, job=job)
            if started
            else RunRecords(root.resolve().name, ())
        )
        write_text_through(path, render_html(run, ended), project=root)
    except UsageError:
        raise  # `--run` names no archived run: exit 2, said by the command
    except (OSError, RalphError) as exc:
        text = exc.message if isinstance(exc, RalphError) else exc.strerror or str(exc)
        print(f"error: cannot write the report {path}: {text}", file=sys.stderr)
        return False
    return True


def write_reports(
    report: RunReport,
    *,
    junit: Path | None,
    report_json: Path | None,
    project: Path | None = None,
) -> list[Path]:
    """Each report atomically when it is a file (a CI step never reads half of one), written
    through when the path is a symlink, a named pipe or a device; a report inside `project`
    that a link would lead elsewhere is refused (store/files.write_text_through). A report that
    cannot be written is said on stderr in one line and does not change the run's exit code.
    The paths written."""
    import json
    import os

    from ralph.store.disk.files import write_text_through
    from ralph.ui.reports import junit_xml, markdown_summary, report_data

    outputs: list[tuple[Path, Callable[[], str]]] = []
    if junit is not None:
        outputs.append((junit, lambda: junit_xml(report)))
    if report_json is not None:
        outputs.append((report_json, lambda: json.dumps(report_data(report), indent=2) + "\n"))
    written: list[Path] = []
    for path, render in outputs:
        try:
            write_text_through(path, render(), project=project)
            written.append(path)
        except OSError as exc:
            said = printable(f"error: cannot write the report {path}: {exc.strerror or exc}")
            print(said, file=sys.stderr)
        except RalphError as exc:
            print(printable(f"error: report not written: {exc.message}"), file=sys.stderr)
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
    return written
