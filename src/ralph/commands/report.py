"""`ralph report --html PATH [--run ID]`: the latest run that did work (or an archived run) as
one self-contained HTML file, from what ralph recorded (a run still going is reported as far
as it has got)."""

from __future__ import annotations

from pathlib import Path

from ralph.errors import ExitCode, UsageError


def report(root: Path, *, html: Path | None, run_id: str | None = None) -> int:
    from ralph.commands.runreports import write_html_report

    if html is None:
        raise UsageError(
            "ralph report: no report asked for", "give --html PATH (e.g. --html run.html)"
        )
    if not write_html_report(root, html, run_id=run_id):
        return int(ExitCode.ERROR)
    print(f"wrote {html}")
    return 0
