"""A run told as a story for the HTML report: its rotations (with their checks, refusals and
log excerpt), each spec's counter path, what it spent over time, the final verifications and
the escalations, folded from the worklog records `store/runstory.py` read. Pure."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ralph.store.runstory import RunRecords

VERIFY = "(final verification)"


@dataclass(frozen=True)
class Check:
    name: str
    method: str
    passed: bool
    required: bool
    summary: str


@dataclass(frozen=True)
class Rotation:
    iteration: int
    spec: str
    mode: str
    agent: str
    started: float | None = None
    signal: str = "running"  # until its end is recorded
    seconds: float | None = None
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
    verifications: tuple[dict[str, Any], ...] = ()  # their recorded ends: passed or failed
    escalations: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default=())  # questions, waits, breaker openings


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _str(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _num(value: object) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else None  # type: ignore[arg-type]


def _strs(value: object) -> tuple[str, ...]:
    """A list of strings as recorded; anything else (a damaged or forged record) is none."""
    return tuple(_str(v) for v in value) if isinstance(value, list) else ()


def _ended(rot: Rotation, rec: dict[str, Any]) -> Rotation:
    return replace(
        rot,
        signal=_str(rec.get("signal")) or "NONE",
        seconds=_num(rec.get("agent_s")),
        changed=_strs(rec.get("changed")),
        done_count=_int(rec.get("done_count")),
        note=_str(rec.get("note")) or None,
        input_tokens=_int(rec.get("input_tokens")),
        output_tokens=_int(rec.get("output_tokens")),
        cost_usd=_num(rec.get("cost_usd")),
        downgraded=_strs(rec.get("downgraded")),
        log=_str(rec.get("log")) or None,
    )


def _key(rec: dict[str, Any]) -> tuple[int, str]:
    return _int(rec.get("iteration")), _str(rec.get("spec"))


def _fold_rotations(records: tuple[dict[str, Any], ...]) -> dict[tuple[int, str], Rotation]:
    rows: dict[tuple[int, str], Rotation] = {}
    lanes: dict[str, str] = {}  # spec -> the branch of its open lane (--parallel)
    for rec in records:
        kind, key = rec.get("event"), _key(rec)
        if kind in ("lane_open", "lane_close"):
            lanes[key[1]] = _str(rec.get("branch")) if kind == "lane_open" else "main"
        elif kind == "rotation_start":
            rows[key] = Rotation(
                *(key[0], key[1], _str(rec.get("mode")), _str(rec.get("agent"))),
                started=_num(rec.get("ts")),
                lane=lanes.get(key[1], "main"),
            )
        elif kind == "verification" and rec.get("transition") == "started":
            key = (key[0], VERIFY)
            rows[key] = Rotation(
                key[0], VERIFY, "VERIFY", _str(rec.get("agent")), _num(rec.get("ts"))
            )
        elif key not in rows and not (kind == "verification" and (key[0], VERIFY) in rows):
            continue
        elif kind == "rotation_end":
            rows[key] = _ended(rows[key], rec)
        elif kind == "check":
            check = Check(
                _str(rec.get("name")),
                _str(rec.get("method")),
                rec.get("passed") is True,
                rec.get("required") is not False,
                _str(rec.get("summary")),
            )
            rows[key] = replace(rows[key], checks=(*rows[key].checks, check))
        elif kind == "done_gate" and rec.get("passed") is False:
            reasons = _strs(rec.get("reasons"))
            rows[key] = replace(rows[key], refusals=(*rows[key].refusals, *reasons))
        elif kind == "verification" and rec.get("transition") in ("passed", "failed"):
            key = (key[0], VERIFY)
            passed = rec.get("transition") == "passed"
            ended, started = _num(rec.get("ts")), rows[key].started
            rows[key] = replace(
                rows[key],
                signal="VERIFY_PASS" if passed else "VERIFY_FAIL",
                changed=_strs(rec.get("changed")),
                note="; ".join(_strs(rec.get("reasons"))) or None,
                log=_str(rec.get("log")) or None,
                seconds=None if ended is None or started is None else max(0.0, ended - started),
                input_tokens=_int(rec.get("input_tokens")),
                output_tokens=_int(rec.get("output_tokens")),
                cost_usd=_num(rec.get("cost_usd")),
            )
    return rows


def _spec_stories(rotations: tuple[Rotation, ...], state: dict[str, Any]) -> tuple[SpecStory, ...]:
    stories: dict[str, SpecStory] = {}
    rows = state.get("specs")
    for row in rows if isinstance(rows, list) else ():
        if isinstance(row, dict) and isinstance(row.get("path"), str):
            tests = row.get("tests")
            stories[row["path"]] = SpecStory(
                row["path"],
                _int(row.get("done_count")),
                _str(row.get("last_status")) or None,
                _tests_text(tests) if isinstance(tests, dict) else None,
            )
    for rot in rotations:
        if rot.spec == VERIFY:
            continue
        spec = stories.get(rot.spec) or SpecStory(rot.spec)
        counter = spec.counter
        if rot.done_count is not None:
            counter = (*counter, (rot.iteration, rot.done_count))
        cost = spec.cost_usd
        if rot.cost_usd is not None:
            cost = round((cost or 0.0) + rot.cost_usd, 9)
        stories[rot.spec] = replace(
            spec,
            counter=counter,
            rotations=spec.rotations + 1,
            tokens=spec.tokens + rot.input_tokens + rot.output_tokens,
            cost_usd=cost,
        )
        for other in rot.downgraded:  # the propagation rule: 3/3 -> 2/3 elsewhere
            if other in stories:
                path = (*stories[other].counter, (rot.iteration, 2))
                stories[other] = replace(stories[other], counter=path)
    return tuple(stories.values())


def _tests_text(tests: dict[str, Any]) -> str:
    return ", ".join(f"{_int(tests.get(k))} {k}" for k in ("passed", "failed", "skipped"))


def story_of(run: RunRecords, ended: tuple[int, str] | None = None) -> Story:
    """The story of the latest run; `ended` (exit code, reason) for a run that stopped without
    recording its end (the run command knows how it ended)."""
    records = run.records
    start = records[0] if records else {}
    rotations = tuple(
        replace(rot, excerpt=run.excerpts.get(rot.log or ""))
        for rot in _fold_rotations(records).values()
    )
    story = Story(
        project=run.project,
        agent=_str(start.get("agent")) or None,
        started=_num(start.get("ts")),
        rotations=rotations,
        specs=_spec_stories(rotations, run.state),
        verifications=tuple(
            r
            for r in records
            if r.get("event") == "verification" and r.get("transition") in ("passed", "failed")
        ),
        escalations=tuple(r for r in records if r.get("event") == "escalation"),
        notes=tuple(_note(r) for r in records if _note(r)),
    )
    end = next((r for r in reversed(records) if r.get("event") == "run_end"), None)
    if end is not None:
        code = end.get("exit_code")
        return replace(
            story,
            ended=_num(end.get("ts")),
            exit_code=code if isinstance(code, int) else None,
            reason=_str(end.get("reason")) or None,
        )
    if ended is not None:
        return replace(story, exit_code=ended[0], reason=ended[1])
    return story


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
