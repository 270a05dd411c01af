"""`ralph report --html PATH [--run ID | --job]`: the latest run that did work (a run continued
after a kill with the part that was killed), an archived run, or the whole job (every run since
the last `ralph reset`) as one self-contained HTML file, from what ralph recorded (a run still
going is reported as far as it has got)."""

from __future__ import annotations

from pathlib import Path

from ralph.errors import ExitCode, UsageError


def report(root: Path, *, html: Path | None, run_id: str | None = None, job: bool = False) -> int:
    from ralph.commands.runreports import write_html_report

    if html is None:
        raise UsageError(
            "ralph report: no report asked for", "give --html PATH (e.g. --html run.html)"
        )
    if job and run_id is not None:
        raise UsageError(
            "ralph report: --run and --job name different reports",
            "give --run ID for an archived run, or --job for every run since the last reset",
        )
    if not write_html_report(root, html, run_id=run_id, job=job):
        return int(ExitCode.ERROR)
    print(f"wrote {html}")
    return 0
