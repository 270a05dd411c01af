"""A run told as a story for the HTML report: its rotations (with their checks, refusals and
log excerpt), each spec's counter path, what it spent over time, the final verifications and
the escalations, folded from the worklog records `store/records/runstory.py` read. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ralph.rules.counts import recorded
from ralph.rules.counts.runtotals import RunTotals, run_totals
from ralph.rules.counts.state import MAX_COUNT
from ralph.rules.evidence.firsterror import with_error
from ralph.store.records.runs import runs
from ralph.store.records.runstory import RunRecords

VERIFY = "(final verification)"
# A log excerpt as shown: the last lines of the log rendered as `ralph history N` renders
# them, bounded so that a 100-rotation report stays well under its size bound.
EXCERPT_LINES = 40
EXCERPT_LINE_CHARS = 400
EXCERPT_CHARS = 6000


@dataclass(frozen=True)
class Check:
    name: str
    method: str
    passed: bool
    required: bool
    summary: str
    seconds: float | None = None
    spec: str = ""  # whose check it is, in a final verification (ralph.yaml's: none)
    command: str = ""  # the command ralph ran, when it is one of ralph.yaml's


@dataclass(frozen=True)
class Rotation:
    iteration: int
    spec: str
    mode: str
    agent: str
    started: float | None = None
    signal: str = "running"  # until its end is recorded
    seconds: float | None = None  # the whole rotation: the agent, then ralph's checks
    agent_s: float | None = None
    checks_s: float | None = None  # ralph's checks of its DONE (of everything, in VERIFY)
    changed: tuple[str, ...] = ()
    done_count: int | None = None
    note: str | None = None
    lane: str = "main"
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    checks: tuple[Check, ...] = ()
    refusals: tuple[str, ...] = ()  # why its DONE was refused
    downgraded: tuple[str, ...] = ()
    log: str | None = None
    excerpt: str | None = None


@dataclass(frozen=True)
class SpecStory:
    path: str
    done_count: int = 0
    last_status: str | None = None
    tests: str | None = None  # its last test run, e.g. "3 passed, 0 failed, 0 skipped"
    counter: tuple[tuple[int, int], ...] = ()  # (rotation, counter after it)
    rotations: int = 0
    tokens: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class Story:
    project: str
    agent: str | None = None
    started: float | None = None
    ended: float | None = None
    exit_code: int | None = None  # None: the run is still going (or was killed)
    reason: str | None = None
    rotations: tuple[Rotation, ...] = ()
    specs: tuple[SpecStory, ...] = ()
    escalations: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())  # questions, waits, breaker openings
    totals: RunTotals = field(default_factory=RunTotals)  # the run's numbers (runtotals)
    runs: int = 1  # the runs told (a job's; a run continued after a kill is one)
    job: bool = False  # every run since the last `ralph reset`


_int = recorded.count
_str = recorded.text
_strs = recorded.texts


def _times(rot: Rotation, rec: dict[str, Any]) -> Rotation:
    agent_s = recorded.seconds(rec.get("agent_s"))
    return replace(
        rot,
        # a record of before the whole was recorded: the agent's time is what is known
        seconds=recorded.seconds(rec.get("seconds")) or agent_s,
        agent_s=agent_s,
        checks_s=recorded.seconds(rec.get("checks_s")),
    )


def _check(rec: dict[str, Any], verifying: bool) -> Check:
    return Check(
        _str(rec.get("name")),
        _str(rec.get("method")),
        rec.get("passed") is True,
        rec.get("required") is not False,
        with_error(_str(rec.get("summary")), _str(rec.get("error")) or None),
        recorded.seconds(rec.get("seconds")),
        _str(rec.get("spec")) if verifying else "",
        _str(rec.get("command")),
    )


def _ended(rot: Rotation, rec: dict[str, Any]) -> Rotation:
    return replace(
        _times(rot, rec),
        signal=_str(rec.get("signal")) or "NONE",
        changed=_strs(rec.get("changed")),
        done_count=min(_int(rec.get("done_count")), MAX_COUNT),
        note=_str(rec.get("note")) or None,
        input_tokens=_int(rec.get("input_tokens")),
        output_tokens=_int(rec.get("output_tokens")),
        cost_usd=recorded.money(rec.get("cost_usd")),
        downgraded=_strs(rec.get("downgraded")),
        log=_str(rec.get("log")) or None,
    )


def _key(rec: dict[str, Any]) -> tuple[int, str]:
    return _int(rec.get("iteration")), _str(rec.get("spec"))


Drop = tuple[int, str]  # (the rotation it came after, the spec that dropped 3/3 -> 2/3)


def _fold_rotations(
    records: tuple[dict[str, Any], ...],
) -> tuple[dict[tuple[int, str], Rotation], list[Drop]]:
    rows: dict[tuple[int, str], Rotation] = {}
    lanes: dict[str, str] = {}  # spec -> the branch of its open lane (--parallel)
    drops: list[Drop] = []
    ended = 0  # the highest rotation number ended so far: a merge comes after it
    for rec in records:
        kind, key = rec.get("event"), _key(rec)
        if kind == "lane_merge":  # a lane's work merged: the propagation rule, as a rotation's
            drops += [(ended, spec) for spec in _strs(rec.get("downgraded"))]
        if kind in ("lane_open", "lane_close"):
            lanes[key[1]] = _str(rec.get("branch")) if kind == "lane_open" else "main"
        elif kind == "rotation_start":
            rows[key] = Rotation(
                *(key[0], key[1], _str(rec.get("mode")), _str(rec.get("agent"))),
                started=recorded.epoch(rec.get("ts")),
                # where it ran, as its record says (a lane open from an earlier run has
                # no lane_open in this one); an older record: the spec's lane opened here
                lane=_str(rec.get("lane")) or lanes.get(key[1], "main"),
            )
        elif kind == "verification" and rec.get("transition") == "started":
            key = (key[0], VERIFY)
            rows[key] = Rotation(
                key[0], VERIFY, "VERIFY", _str(rec.get("agent")), recorded.epoch(rec.get("ts"))
            )
        elif kind == "check" and key not in rows and (key[0], VERIFY) in rows:
            # a check ralph ran in a final verification: the test command, each spec's
            row = rows[(key[0], VERIFY)]
            rows[(key[0], VERIFY)] = replace(row, checks=(*row.checks, _check(rec, True)))
        elif key not in rows and not (kind == "verification" and (key[0], VERIFY) in rows):
            continue
        elif kind == "rotation_end":
            rows[key] = _ended(rows[key], rec)
            ended = max(ended, key[0])
            drops += [(key[0], spec) for spec in rows[key].downgraded]
        elif kind == "check":
            rows[key] = replace(rows[key], checks=(*rows[key].checks, _check(rec, False)))
        elif kind == "done_gate" and rec.get("passed") is False:
            reasons = _strs(rec.get("reasons"))
            rows[key] = replace(rows[key], refusals=(*rows[key].refusals, *reasons))
        elif kind == "verification" and rec.get("transition") in ("passed", "failed"):
            key = (key[0], VERIFY)
            passed = rec.get("transition") == "passed"
            ended = max(ended, key[0])
            rows[key] = replace(
                _times(rows[key], rec),
                signal="VERIFY_PASS" if passed else "VERIFY_FAIL",
                changed=_strs(rec.get("changed")),
                note="; ".join(_strs(rec.get("reasons"))) or None,
                log=_str(rec.get("log")) or None,
                input_tokens=_int(rec.get("input_tokens")),
                output_tokens=_int(rec.get("output_tokens")),
                cost_usd=recorded.money(rec.get("cost_usd")),
            )
    return rows, drops


def _spec_stories(
    rotations: tuple[Rotation, ...], drops: list[Drop], state: dict[str, Any]
) -> tuple[SpecStory, ...]:
    stories: dict[str, SpecStory] = {}
    rows = state.get("specs")
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, dict) and isinstance(row.get("path"), str):
            tests = row.get("tests")
            stories[_str(row["path"])] = SpecStory(
                _str(row["path"]),
                _int(row.get("done_count")),
                _str(row.get("last_status")) or None,
                _tests_text(tests) if isinstance(tests, dict) else None,
            )
    steps: dict[str, list[tuple[int, int, int]]] = {}  # spec -> (rotation, order, counter)
    for rot in rotations:
        if rot.spec == VERIFY:
            continue
        spec = stories.get(rot.spec) or SpecStory(rot.spec)
        if rot.done_count is not None:
            steps.setdefault(rot.spec, []).append((rot.iteration, 0, rot.done_count))
        cost = spec.cost_usd
        if rot.cost_usd is not None:
            cost = round((cost or 0.0) + rot.cost_usd, 9)
        stories[rot.spec] = replace(
            spec,
            rotations=spec.rotations + 1,
            tokens=spec.tokens + rot.input_tokens + rot.output_tokens,
            cost_usd=cost,
        )
    for after, other in drops:  # the propagation rule: 3/3 -> 2/3 elsewhere
        steps.setdefault(other, []).append((after, 1, 2))
    # In rotation order, whatever order lanes ended in; a drop after the rotation it followed.
    for path, found in steps.items():
        if path in stories:
            counter = tuple((n, count) for n, _, count in sorted(found))
            stories[path] = replace(stories[path], counter=counter)
    return tuple(stories.values())


def _tests_text(tests: dict[str, Any]) -> str:
    return ", ".join(f"{_int(tests.get(k))} {k}" for k in ("passed", "failed", "skipped"))


def story_of(run: RunRecords, ended: tuple[int, str] | None = None) -> Story:
    """The story of the latest run; `ended` (exit code, reason) for a run that stopped without
    recording its end (the run command knows how it ended)."""
    records = run.records
    start = records[0] if records else {}
    rows, drops = _fold_rotations(records)
    rotations = tuple(
        replace(rot, excerpt=excerpt(run.excerpts.get(rot.log or ""), rot.agent))
        for rot in rows.values()
    )
    story = Story(
        project=run.project,
        agent=_str(start.get("agent")) or None,
        started=recorded.epoch(start.get("ts")),
        rotations=rotations,
        specs=_spec_stories(rotations, drops, run.state),
        totals=run_totals(records),
        escalations=tuple(_escalation(r) for r in records if r.get("event") == "escalation"),
        notes=(*_run_notes(records), *(_note(r) for r in records if _note(r))),
        runs=max(1, len(runs(records))),
        job=run.job,
    )
    end = next((r for r in reversed(records) if r.get("event") == "run_end"), None)
    if end is not None:
        story = replace(story, ended=recorded.epoch(end.get("ts")))
    if ended is not None:  # the run that just ended says how itself, whatever a record says
        return replace(story, exit_code=ended[0], reason=ended[1])
    if end is not None:
        code = end.get("exit_code")
        return replace(
            story, exit_code=recorded.whole(code), reason=_str(end.get("reason")) or None
        )
    return story


def excerpt(tail: str | None, agent: str) -> str | None:
    """The end of a history log as its agent's adapter renders it (Claude's stream-json
    becomes its text, as `ralph history N` shows it), redacted again (an escaped secret in a
    JSON line is a plain one once read), escape codes removed, bounded."""
    if tail is None:
        return None
    from ralph.agents.replay import readable
    from ralph.rules.text.printable import clean_line
    from ralph.rules.text.redact import redactor

    lines = readable(agent, tail.split("\n"))[-EXCERPT_LINES * 4 :]
    text = redactor().text("\n".join(lines))
    shown = [clean_line(line)[:EXCERPT_LINE_CHARS] for line in text.splitlines()]
    return "\n".join([line for line in shown if line.strip()][-EXCERPT_LINES:])[-EXCERPT_CHARS:]


def _escalation(rec: dict[str, Any]) -> str:
    reasons = "; ".join(_strs(rec.get("reasons"))[-3:])
    return (
        f"{_str(rec.get('subject'))} ({_str(rec.get('kind'))}): the choice was "
        f"{_str(rec.get('choice'))}, {_str(rec.get('outcome'))}"
        + (f"; {reasons}" if reasons else "")
    )


def _run_notes(records: tuple[dict[str, Any], ...]) -> list[str]:
    """How each run but the last ended (a job's), and each part a run continued after a kill."""
    told = runs(records)
    notes: list[str] = []
    for n, run in enumerate(told, 1):
        for rec in run[1:]:
            if rec.get("event") == "run_start":
                when = _clock(rec.get("ts"))
                notes.append(f"run {n}: ralph was killed; the run went on with --continue{when}")
        end = next((r for r in reversed(run) if r.get("event") == "run_end"), None)
        if n == len(told):
            continue
        if end is None:
            notes.append(f"run {n} ended without a record (killed?)")
        else:
            code, why = recorded.whole(end.get("exit_code")), _str(end.get("reason"))
            notes.append(f"run {n} ended (exit {code}): {why}")
    return notes


def _clock(ts: object) -> str:
    import time

    at = recorded.epoch(ts)
    return "" if at is None else time.strftime(" at %Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


def _note(rec: dict[str, Any]) -> str:
    kind = rec.get("event")
    if kind == "question":
        return f"question from the agent on {_str(rec.get('spec'))}"
    if kind == "wait":
        return f"waited for a limit to reset: {_str(rec.get('reason'))}"
    if kind == "breaker" and rec.get("after") == "open":
        return f"circuit breaker opened: {_str(rec.get('reason'))}"
    if kind == "spec_blocked":
        return f"{_str(rec.get('spec'))} blocked: {_str(rec.get('reason'))}"
    return ""
