"""ui/htmlreport.py: `ralph report --html`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ralph.rules.counts.runtotals import run_totals
from ralph.store.disk.workspace import Workspace
from ralph.store.records.runstory import RunRecords
from ralph.ui.htmlreport import MAX_BYTES, render_html
from ralph.ui.story import story_of
from tests.conftest import Project
from tests.sample_records import lanes_run, rotation


def _points(html: str, title: str) -> list[tuple[float, float]]:
    chart = html.split(f"<title>{title}</title>", 1)[1].split("</svg>", 1)[0]
    coords = re.search(r'points="([^"]+)"', chart)
    assert coords is not None
    return [tuple(map(float, p.split(","))) for p in coords.group(1).split()]  # type: ignore[misc]


def test_the_running_token_total_never_goes_back_in_a_lanes_run() -> None:
    html = render_html(RunRecords("p", tuple(lanes_run())))
    points = _points(html, "tokens so far")
    xs = [x for x, _ in points]
    ys = [-y for _, y in points]  # SVG's y grows downwards
    assert xs == sorted(xs) and ys == sorted(ys), points


def test_forged_values_count_as_unknown_and_never_crash() -> None:
    forged: list[dict[str, Any]] = [
        {"ts": 1e308, "event": "run_start", "agent": {"x": 1}},
        {"ts": float("nan"), "event": "rotation_start", "iteration": 10**30, "spec": ["x"]},
        {"ts": -5, "event": "rotation_start", "iteration": 1, "spec": "a", "mode": 3},
        {
            "ts": float("inf"),
            "event": "rotation_end",
            "iteration": 1,
            "spec": "a",
            "done_count": 10**40,
            "agent_s": float("nan"),
            "checks_s": -3,
            "seconds": 1e300,
            "input_tokens": 10**40,
            "output_tokens": -4,
            "cost_usd": float("-inf"),
            "changed": "abc",
            "downgraded": 5,
            "signal": {"s": 1},
        },
        {"event": "run_end", "exit_code": 10**30, "reason": ["r"], "totals": {"seconds": "x"}},
    ]
    totals = run_totals(forged)
    assert totals.usage.input_tokens == 0 and totals.agent_s == 0 and totals.checks_s == 0
    html = render_html(RunRecords("p", tuple(forged)))
    assert "nan" not in html.lower().replace("nanos", "") and "inf<" not in html
    assert json.dumps(totals.to_json(), allow_nan=False)


def test_the_page_stays_within_its_bound_whatever_the_records_hold() -> None:
    big = "<b>" + "x" * 2_000
    records: list[dict[str, Any]] = [{"ts": 1.0, "event": "run_start", "agent": big}]
    for n in range(1, 201):
        records += rotation(n, f"specs/{n % 400}-{big}", 1, 1, note=big, changed=[big] * 60)
        records.append(
            {
                "ts": 2.0,
                "event": "done_gate",
                "iteration": n,
                "spec": f"specs/{n % 400}-{big}",
                "passed": False,
                "reasons": [big] * 100,
            }
        )
    records += [{"event": "escalation", "subject": big, "reasons": [big]}] * 2000
    state = {"specs": [{"path": f"s{n}{big}", "done_count": 3} for n in range(300)]}
    excerpts = {big: big * 50}
    html = render_html(RunRecords("p", tuple(records), state, excerpts))
    assert len(html.encode()) <= MAX_BYTES
    assert "earlier rotations not shown" in html and "<b>" not in html
    assert '<td class="num">200</td>' in html  # the latest rotations are the ones kept


def test_the_run_that_just_ended_says_its_verdict_whatever_a_record_says() -> None:
    """A run_end line an agent forged says exit 0; the run command knows it ended with 5."""
    forged = [
        {"ts": 1.0, "event": "run_start"},
        {"ts": 2.0, "event": "run_end", "exit_code": 0, "reason": "every spec verified (3/3)"},
    ]
    story = story_of(RunRecords("p", tuple(forged)), (5, "the agent is stuck on PROMPT.md"))
    assert (story.exit_code, story.reason) == (5, "the agent is stuck on PROMPT.md")
    assert "every spec verified" not in render_html(RunRecords("p", tuple(forged)), (5, "stuck"))


def test_a_forged_worklog_neither_breaks_the_report_nor_reads_outside_history(
    git_project: Project, tmp_path: Path
) -> None:
    """The worklog is ralph's record in its store, out of a sandboxed agent's reach; forged
    there all the same (an agent run without a sandbox), damaged or forged records are shown
    as far as they make sense, and only ralph's records of the logs are read, never through a
    link (the store's or `.ralph/history`)."""
    outside = tmp_path / "private.txt"
    outside.write_text("PRIVATE-CONTENT\n")
    ws = Workspace(git_project.root)
    for folder in (ws.history, ws.records):
        (folder / "x").mkdir(parents=True)
        (folder / "x" / "001.log").symlink_to(outside)
    records = [
        {"ts": "soon", "event": "run_start", "agent": ["x"]},
        {"ts": 1, "event": "rotation_start", "iteration": 1, "spec": "a", "mode": 3},
        {
            "ts": None,
            "event": "rotation_end",
            "iteration": 1,
            "spec": "a",
            "downgraded": 5,
            "changed": "abc",
            "agent_s": "x",
            "cost_usd": True,
            "log": str(outside),
        },
        {"event": "rotation_start", "iteration": 2, "spec": "b"},
        {"event": "rotation_end", "iteration": 2, "spec": "b", "log": ".ralph/history/x/001.log"},
        {"event": "verification", "transition": "passed", "iteration": 9, "reasons": "r"},
        {"event": "done_gate", "iteration": 1, "spec": "a", "passed": False, "reasons": {"a": 1}},
        "not an object",
    ]
    ws.worklog.write_text("\n".join(json.dumps(r) for r in records) + '\n{"cut short')
    (ws.store / "state.json").write_text('{"specs": 7}')
    res = git_project.run("report", "--html", str(tmp_path / "r.html"))
    assert res.exit_code == 0, res
    html = (tmp_path / "r.html").read_text()
    assert "PRIVATE-CONTENT" not in html
    assert html.count('<tr><td class="num">') == 2
