"""The end of a run as the plugins hear it (`ralph_run_reported`): after every run, however it
ended, once its reports are written; ralph's own webhook and desktop notification among them."""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.plugins.contained import LIMIT, Failed, call_once
from ralph.plugins.manager import Plugins, plugins
from ralph.rules.counts.state import MAX_COUNT
from ralph.schemas.catalog import SCHEMA_VERSION

if TYPE_CHECKING:
    from ralph.ui.runreport import RunReport
    from ralph.ui.webhook import Webhook

HOOK = "ralph_run_reported"


def reported(root: Path, report: RunReport) -> dict[str, Any]:
    """The hook's event: how the run ended, each spec's count, the run's numbers."""
    return {
        "schema_version": SCHEMA_VERSION,
        "ts": round(time.time(), 3),
        "event": "run_reported",
        "project": root.name,
        "exit_code": report.exit_code if report.exit_code is not None else 1,
        "reason": report.reason or "",
        "specs": [
            {
                "path": s.path,
                "done_count": s.done_count,
                "verified": s.done_count >= MAX_COUNT,
                "last_status": s.last_status,
            }
            for s in report.specs
        ],
        "rotations": report.rotations,
        "totals": None if report.totals is None else report.totals.to_json(),
    }


def tell(found: Plugins, event: dict[str, Any], limit: float = LIMIT) -> None:
    """Each plugin, ralph's own too, gets a fresh copy of `event` on a thread of its own with a
    time limit: one that raises or hangs is named in one line; what any returns is ignored."""
    for impl in getattr(found.manager.hook, HOOK).get_hookimpls():
        result = call_once(impl.function, {"event": copy.deepcopy(event)}, limit)
        if isinstance(result, Failed):
            found.warn(impl.plugin_name, f"{HOOK} {result.reason}")


def tell_reported(
    root: Path, report: RunReport, webhook: Webhook | None, own: Sequence[str]
) -> None:
    """The plugins told; then a bounded wait for the webhook's POSTs still going, and ralph's
    own plugins made for this run dropped."""
    found = plugins()
    if getattr(found.manager.hook, HOOK).get_hookimpls():
        tell(found, reported(root, report))
    if webhook is not None:
        webhook.finish()
    for name in own:
        found.drop_own(name)
