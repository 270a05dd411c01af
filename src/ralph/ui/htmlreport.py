"""`ralph report --html`: the latest run as one self-contained HTML file. Inline CSS and SVG
only, no script, and a Content-Security-Policy that forbids loading anything: it opens offline
and a hostile name in the run cannot fetch or run anything. Every string from the run is
escaped and bounded; a rotation's log excerpt opens in a <details> element (no JavaScript
needed). Whatever the records hold, the page stays under `MAX_BYTES`: each section has its
share, and what does not fit is counted, not shown."""

from __future__ import annotations

import time
from collections.abc import Sequence
from html import escape

from ralph.rules.agents.money import dollars
from ralph.rules.counts.state import MAX_COUNT
from ralph.rules.text.words import plural
from ralph.store.records.runstory import RunRecords
from ralph.ui.story import VERIFY, Check, Rotation, SpecStory, Story, story_of
from ralph.ui.svgchart import bar_chart, counter_steps, line_chart
from ralph.ui.text import clean_line, format_seconds, totals_line

MAX_BYTES = 2_000_000  # the whole page, whatever the run recorded
# Each section's share of it (the head, the styles and the charts take the rest).
SHARES = {"specs": 250_000, "timeline": 1_350_000, "verification": 150_000, "other": 100_000}
MAX_TEXT = 500  # characters of one name, note or reason
MAX_POINTS = 400  # points of a line chart; bars of a bar chart

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;
color:#1d2330;background:#fbfbfd}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e6e6ee;vertical-align:top}
th{background:#f0f1f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#17803d;font-weight:600}.bad{color:#b42318;font-weight:600}.muted{color:#778}
.outcome{padding:10px 14px;border-radius:6px;margin:10px 0;background:#eef7f0}
.outcome.bad{background:#fdeceb}.outcome.live{background:#eef2fd;color:#1d2330}
.chart{width:100%;max-width:640px;height:auto;background:#fff;border:1px solid #e6e6ee}
.chart text,.steps text{font-size:11px;fill:#445}.axis{stroke:#99a}
.series{stroke:#3b5bdb;stroke-width:2}.bar{fill:#3b5bdb}
pre{background:#11151c;color:#e6e6e6;padding:8px;overflow:auto;max-height:360px;font-size:12px}
details summary{cursor:pointer}code{font-size:12px}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:16px}
"""


def _e(value: object) -> str:
    """Escaped text of anything from the run, control characters and escape codes removed,
    at most `MAX_TEXT` characters."""
    text = clean_line("" if value is None else str(value))
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return escape(text, quote=True)


def _within(items: Sequence[str], share: int, what: str) -> tuple[str, str]:
    """The last of `items` that fit in `share` bytes, in their order, and a note saying how
    many were left out (empty when none was)."""
    kept: list[str] = []
    used = 0
    for item in reversed(items):
        used += len(item.encode())
        if used > share:
            break
        kept.append(item)
    left = len(items) - len(kept)
    note = (
        f'<p class="muted">{left} earlier {what} not shown: the report stays under '
        f"{MAX_BYTES // 1_000_000} MB (ralph history lists them all)</p>"
        if left
        else ""
    )
    return "".join(reversed(kept)), note


def _when(ts: object) -> str:
    if not isinstance(ts, (int, float)):
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def _money(value: float | None) -> str:
    return "—" if value is None else dollars(value, 4)


def _signal(signal: str) -> str:
    good = signal in ("DONE", "VERIFY_PASS")
    bad = signal in ("ERROR", "STUCK", "REFUSED", "VERIFY_FAIL")
    cls = "ok" if good else "bad" if bad else ""
    return f'<span class="{cls}">{_e(signal)}</span>'


def _outcome(story: Story) -> str:
    verified = sum(1 for s in story.specs if s.done_count >= MAX_COUNT)
    facts = f"{verified}/{len(story.specs)} specs verified · {_e(totals_line(story.totals))}"
    if story.exit_code is None:
        return f'<div class="outcome live">Run in progress (or stopped unrecorded) · {facts}</div>'
    cls = "" if story.exit_code == 0 else " bad"
    return (
        f'<div class="outcome{cls}"><b>exit {story.exit_code}</b>: {_e(story.reason)}'
        f" · {facts}</div>"
    )


def _specs_table(specs: tuple[SpecStory, ...]) -> str:
    rows = [
        f"<tr><td><code>{_e(s.path)}</code></td>"
        f'<td class="{"ok" if s.done_count >= MAX_COUNT else "bad"}">{s.done_count}/{MAX_COUNT}'
        f"</td><td>{_e(s.last_status or '—')}</td><td>{_e(s.tests or '—')}</td>"
        f'<td class="num">{s.rotations}</td><td class="num">{s.tokens}</td>'
        f'<td class="num">{_money(s.cost_usd)}</td><td>{counter_steps(s.counter)}</td></tr>'
        for s in specs
    ]
    head = (
        "<tr><th>Spec</th><th>Counter</th><th>Last status</th><th>Tests</th><th>Rotations</th>"
        "<th>Tokens</th><th>Cost</th><th>Counter path</th></tr>"
    )
    shown, note = _within(rows, SHARES["specs"], "specs")
    return f"<table>{head}{shown}</table>{note}"


def _check_item(c: Check) -> str:
    took = "" if c.seconds is None else f", {format_seconds(c.seconds)}"
    whose = f"{_e(c.spec)}: " if c.spec else ""
    ran = f" <code>{_e(c.command)}</code>" if c.command else ""
    return (
        f'<li><span class="{"ok" if c.passed else "bad"}">'
        f"{'passed' if c.passed else 'FAILED'}</span> {whose}{_e(c.name)}{ran} ({_e(c.method)}"
        f"{'' if c.required else ', warning only'}{took}): {_e(c.summary)}</li>"
    )


def _details(rot: Rotation) -> str:
    parts: list[str] = []
    if rot.changed:
        files = ", ".join(f"<code>{_e(p)}</code>" for p in rot.changed[:50])
        more = f" and {len(rot.changed) - 50} more" if len(rot.changed) > 50 else ""
        parts.append(f"<p>Files changed: {files}{more}</p>")
    if rot.refusals:
        items = "".join(f"<li>{_e(r)}</li>" for r in rot.refusals[:50])
        parts.append(f'<p class="bad">DONE refused:</p><ul>{items}</ul>')
    if rot.checks and rot.spec != VERIFY:  # a final verification's are in their section
        items = "".join(_check_item(c) for c in rot.checks[:50])
        parts.append(f"<p>Checks:</p><ul>{items}</ul>")
    if rot.downgraded:
        parts.append(f"<p>Dropped 3/3 → 2/3: {_e(', '.join(rot.downgraded))}</p>")
    if rot.excerpt is not None:
        body = "\n".join(clean_line(line) for line in rot.excerpt.splitlines())
        parts.append(
            f"<details><summary>Log excerpt ({_e(rot.log)}, redacted, as ralph history "
            f"{rot.iteration} shows it)</summary>"
            f"<pre>{escape(body)}</pre></details>"
        )
    return "".join(parts)


def _timeline(rotations: tuple[Rotation, ...]) -> str:
    head = (
        "<tr><th>#</th><th>Spec</th><th>Lane</th><th>Mode</th><th>Agent</th><th>Signal</th>"
        "<th>Counter</th><th>Time</th><th>Files</th><th>Tokens</th><th>Cost</th></tr>"
    )
    rows: list[str] = []
    for r in rotations:
        counter = "—" if r.done_count is None or r.spec == VERIFY else f"{r.done_count}/3"
        seconds = _time(r)
        row = (
            f'<tr><td class="num">{r.iteration}</td><td><code>{_e(r.spec)}</code></td>'
            f"<td>{_e(r.lane)}</td><td>{_e(r.mode)}</td><td>{_e(r.agent)}</td>"
            f"<td>{_signal(r.signal)}</td><td>{counter}</td><td>{seconds}</td>"
            f'<td class="num">{len(r.changed)}</td>'
            f'<td class="num">{r.input_tokens + r.output_tokens}</td>'
            f'<td class="num">{_money(r.cost_usd)}</td></tr>'
        )
        note = f"<p>Note: {_e(r.note)}</p>" if r.note else ""
        details = note + _details(r)
        if details:
            row += f'<tr><td></td><td colspan="10">{details}</td></tr>'
        rows.append(row)
    shown, left = _within(rows, SHARES["timeline"], "rotations")
    return f"{left}<table>{head}{shown}</table>"


def _time(r: Rotation) -> str:
    """The whole rotation, and how much of it ralph's checks took."""
    if r.seconds is None:
        return "—"
    checks = f" (checks {format_seconds(r.checks_s)})" if r.checks_s else ""
    return format_seconds(r.seconds) + checks


def _sampled(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """At most `MAX_POINTS` of a line's points, its last one kept."""
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / MAX_POINTS
    return [points[int(n * step)] for n in range(MAX_POINTS - 1)] + [points[-1]]


def _charts(story: Story) -> str:
    tokens: list[tuple[float, float]] = []
    cost: list[tuple[float, float]] = []
    total_tokens, total_cost = 0, 0.0
    # By rotation number: lanes end in any order, and a running total never goes back.
    for r in sorted(story.rotations, key=lambda r: r.iteration):
        total_tokens += r.input_tokens + r.output_tokens
        tokens.append((r.iteration, total_tokens))
        if r.cost_usd is not None:
            total_cost += r.cost_usd
            cost.append((r.iteration, total_cost))
    tokens, cost = _sampled(tokens), _sampled(cost)
    specs = story.specs[:MAX_POINTS]
    per_spec_tokens = [(s.path[:MAX_TEXT], float(s.tokens)) for s in specs]
    priced = any(s.cost_usd is not None for s in specs)
    per_spec_cost = [(s.path[:MAX_TEXT], s.cost_usd or 0.0) for s in specs] if priced else []
    return (
        '<div class="grid"><div><h3>Tokens over the run</h3>'
        f"{line_chart(tokens if total_tokens else [], title='tokens so far')}</div>"
        f"<div><h3>Cost over the run</h3>{line_chart(cost, title='cost so far', unit='$')}"
        "</div><div><h3>Tokens per spec</h3>"
        f"{bar_chart(per_spec_tokens, title='tokens per spec')}</div>"
        f"<div><h3>Cost per spec</h3>{bar_chart(per_spec_cost, title='cost', unit='$')}"
        "</div></div>"
    )


def _verifications(rotations: tuple[Rotation, ...]) -> str:
    """Each final verification: the verifier's verdict, then what ralph itself ran."""
    items: list[str] = []
    for r in rotations:
        if r.spec != VERIFY:
            continue
        why = f": {_e(r.note)}" if r.note else ""
        ran = "".join(_check_item(c) for c in r.checks[:100])
        own = (
            f"<p>ralph ran{_took(r.checks_s)}:</p><ul>{ran}</ul>"
            if ran
            else "<p>ralph ran no check of its own (no <code>test_command</code> in ralph.yaml, "
            "no spec with checks)</p>"
        )
        items.append(
            f"<li><p>rotation {r.iteration}, verifier {_e(r.agent)}: {_signal(r.signal)}"
            f"{why}</p>{own}</li>"
        )
    if not items:
        return '<p class="muted">none</p>'
    shown, note = _within(items, SHARES["verification"], "final verifications")
    return f"{note}<ul>{shown}</ul>"


def _took(seconds: float | None) -> str:
    return "" if not seconds else f" ({format_seconds(seconds)})"


def _items(texts: Sequence[str], what: str) -> str:
    if not texts:
        return '<p class="muted">none</p>'
    shown, note = _within([f"<li>{_e(t)}</li>" for t in texts], SHARES["other"] // 2, what)
    return f"{note}<ul>{shown}</ul>"


def render_html(run: RunRecords, ended: tuple[int, str] | None = None) -> str:
    """The whole report of the latest run (or of the job: every run since the last reset)."""
    story = story_of(run, ended)
    what = "job" if story.job else "run"
    runs = f" · {plural(story.runs, 'run')} since the last ralph reset" if story.job else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ralph {what} report: {_e(story.project)}</title><style>{_CSS}</style>"
        f"</head><body><h1>ralph {what} report: {_e(story.project)}</h1>"
        f'<p class="muted">agent {_e(story.agent or "—")} · started {_when(story.started)}'
        f" · ended {_when(story.ended)}{runs}</p>{_outcome(story)}"
        f"<h2>Specs</h2>{_specs_table(story.specs)}"
        f"<h2>Tokens and cost</h2>{_charts(story)}"
        f"<h2>Timeline</h2>{_timeline(story.rotations)}"
        "<h2>Final verification</h2>"
        + _verifications(story.rotations)
        + "<h2>Escalations</h2>"
        + _items(story.escalations, "escalations")
        + (f"<h2>Notes</h2>{_items(story.notes, 'notes')}" if story.notes else "")
        + "</body></html>\n"
    )
