"""`ralph report --html`: the latest run as one self-contained HTML file. Inline CSS and SVG
only, no script, and a Content-Security-Policy that forbids loading anything: it opens offline
and a hostile name in the run cannot fetch or run anything. Every string from the run is
escaped; a rotation's log excerpt opens in a <details> element (no JavaScript needed)."""

from __future__ import annotations

import time
from html import escape
from typing import Any

from ralph.rules.state import MAX_COUNT
from ralph.store.runstory import RunRecords
from ralph.ui.story import VERIFY, Rotation, SpecStory, Story, story_of
from ralph.ui.svgchart import bar_chart, counter_steps, line_chart
from ralph.ui.text import clean_line, format_seconds

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
    """Escaped text of anything from the run, control characters and escape codes removed."""
    return escape(clean_line("" if value is None else str(value)), quote=True)


def _when(ts: object) -> str:
    if not isinstance(ts, (int, float)):
        return "—"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def _money(value: float | None) -> str:
    return "—" if value is None else f"${value:.4f}"


def _signal(signal: str) -> str:
    good = signal in ("DONE", "VERIFY_PASS")
    bad = signal in ("ERROR", "STUCK", "REFUSED", "VERIFY_FAIL")
    cls = "ok" if good else "bad" if bad else ""
    return f'<span class="{cls}">{_e(signal)}</span>'


def _outcome(story: Story) -> str:
    verified = sum(1 for s in story.specs if s.done_count >= MAX_COUNT)
    facts = f"{verified}/{len(story.specs)} specs verified · {len(story.rotations)} rotations"
    if story.exit_code is None:
        return f'<div class="outcome live">Run in progress (or stopped unrecorded) · {facts}</div>'
    cls = "" if story.exit_code == 0 else " bad"
    return (
        f'<div class="outcome{cls}"><b>exit {story.exit_code}</b>: {_e(story.reason)}'
        f" · {facts}</div>"
    )


def _specs_table(specs: tuple[SpecStory, ...]) -> str:
    rows = "".join(
        f"<tr><td><code>{_e(s.path)}</code></td>"
        f'<td class="{"ok" if s.done_count >= MAX_COUNT else "bad"}">{s.done_count}/{MAX_COUNT}'
        f"</td><td>{_e(s.last_status or '—')}</td><td>{_e(s.tests or '—')}</td>"
        f'<td class="num">{s.rotations}</td><td class="num">{s.tokens}</td>'
        f'<td class="num">{_money(s.cost_usd)}</td><td>{counter_steps(s.counter)}</td></tr>'
        for s in specs
    )
    head = (
        "<tr><th>Spec</th><th>Counter</th><th>Last status</th><th>Tests</th><th>Rotations</th>"
        "<th>Tokens</th><th>Cost</th><th>Counter path</th></tr>"
    )
    return f"<table>{head}{rows}</table>"


def _details(rot: Rotation) -> str:
    parts: list[str] = []
    if rot.changed:
        files = ", ".join(f"<code>{_e(p)}</code>" for p in rot.changed[:50])
        more = f" and {len(rot.changed) - 50} more" if len(rot.changed) > 50 else ""
        parts.append(f"<p>Files changed: {files}{more}</p>")
    if rot.refusals:
        items = "".join(f"<li>{_e(r)}</li>" for r in rot.refusals)
        parts.append(f'<p class="bad">DONE refused:</p><ul>{items}</ul>')
    if rot.checks:
        items = "".join(
            f'<li><span class="{"ok" if c.passed else "bad"}">'
            f"{'passed' if c.passed else 'FAILED'}</span> {_e(c.name)} ({_e(c.method)}"
            f"{'' if c.required else ', warning only'}): {_e(c.summary)}</li>"
            for c in rot.checks
        )
        parts.append(f"<p>Checks:</p><ul>{items}</ul>")
    if rot.downgraded:
        parts.append(f"<p>Dropped 3/3 → 2/3: {_e(', '.join(rot.downgraded))}</p>")
    if rot.excerpt is not None:
        body = "\n".join(clean_line(line) for line in rot.excerpt.splitlines())
        parts.append(
            f"<details><summary>Log excerpt ({_e(rot.log)}, redacted)</summary>"
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
        seconds = "—" if r.seconds is None else format_seconds(r.seconds)
        rows.append(
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
            rows.append(f'<tr><td></td><td colspan="10">{details}</td></tr>')
    return f"<table>{head}{''.join(rows)}</table>"


def _charts(story: Story) -> str:
    tokens: list[tuple[float, float]] = []
    cost: list[tuple[float, float]] = []
    total_tokens, total_cost = 0, 0.0
    for r in story.rotations:
        total_tokens += r.input_tokens + r.output_tokens
        tokens.append((r.iteration, total_tokens))
        if r.cost_usd is not None:
            total_cost += r.cost_usd
            cost.append((r.iteration, total_cost))
    per_spec_tokens = [(s.path, float(s.tokens)) for s in story.specs]
    priced = any(s.cost_usd is not None for s in story.specs)
    per_spec_cost = [(s.path, s.cost_usd or 0.0) for s in story.specs] if priced else []
    return (
        '<div class="grid"><div><h3>Tokens over the run</h3>'
        f"{line_chart(tokens if total_tokens else [], title='tokens so far')}</div>"
        f"<div><h3>Cost over the run</h3>{line_chart(cost, title='cost so far', unit='$')}"
        "</div><div><h3>Tokens per spec</h3>"
        f"{bar_chart(per_spec_tokens, title='tokens per spec')}</div>"
        f"<div><h3>Cost per spec</h3>{bar_chart(per_spec_cost, title='cost', unit='$')}"
        "</div></div>"
    )


def _records_list(records: tuple[dict[str, Any], ...], keys: tuple[str, ...]) -> str:
    if not records:
        return '<p class="muted">none</p>'
    items = "".join(
        "<li>"
        + "; ".join(f"{k}: {_e(r[k])}" for k in keys if r.get(k) not in (None, "", []))
        + "</li>"
        for r in records
    )
    return f"<ul>{items}</ul>"


def render_html(run: RunRecords, ended: tuple[int, str] | None = None) -> str:
    """The whole report of the latest run."""
    story = story_of(run, ended)
    notes = "".join(f"<li>{_e(n)}</li>" for n in story.notes)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>ralph run report: {_e(story.project)}</title><style>{_CSS}</style></head><body>"
        f"<h1>ralph run report: {_e(story.project)}</h1>"
        f'<p class="muted">agent {_e(story.agent or "—")} · started {_when(story.started)}'
        f" · ended {_when(story.ended)}</p>{_outcome(story)}"
        f"<h2>Specs</h2>{_specs_table(story.specs)}"
        f"<h2>Tokens and cost</h2>{_charts(story)}"
        f"<h2>Timeline</h2>{_timeline(story.rotations)}"
        "<h2>Final verification</h2>"
        + _records_list(
            story.verifications, ("iteration", "transition", "reasons", "failures", "log")
        )
        + "<h2>Escalations</h2>"
        + _records_list(story.escalations, ("subject", "kind", "choice", "outcome", "reasons"))
        + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
        + "</body></html>\n"
    )
