"""One vocabulary across ralph's JSON: the `--log-format json` events, `status --json` and the
`--report-json` report of one real run name the same thing the same way, with the same type."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from ralph.run.events import SECONDS_KEYS
from tests.conftest import Project


def keys(value: Any, where: str) -> Iterator[tuple[str, Any, str]]:
    """(key, value, where) for every key of every object inside `value`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key, inner, where
            yield from keys(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for inner in value:
            yield from keys(inner, where)


def norm(key: str) -> str:
    """`max_iteration`, `maxIterations` and `max-iterations` all read `maxiteration`."""
    return re.sub(r"[^a-z0-9]", "", key.lower()).removesuffix("s")


def kind(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def one_run(project: Project) -> dict[str, Any]:
    project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    report = project.root.parent / "report.json"
    agent = project.fake({"*": [{"say": "working on it", "signal": "DONE"}]})
    res = project.run(
        "run", *agent, "-n", "3", "-v", "--log-format", "json", "--report-json", str(report)
    )
    assert res.exit_code == 3, res
    status = project.run("status", "--json")
    assert status.exit_code == 0, status
    return {
        "events": [json.loads(line) for line in res.stdout.splitlines()],
        "status": json.loads(status.stdout),
        "report": json.loads(report.read_text()),
    }


def test_events_status_and_report_share_one_vocabulary(project: Project) -> None:
    outputs = one_run(project)
    spellings: dict[tuple[str, str | None], set[str]] = {}
    kinds: dict[str, dict[str, set[str]]] = {}
    for name, data in outputs.items():
        for key, value, where in keys(data, name):
            # `agent` (a name) and `agents` (a list) differ; `max_iteration` and
            # `max_iterations`, both numbers, would be one thing under two names
            spellings.setdefault((norm(key), kind(value)), set()).add(key)
            # under `totals` and `costs` every key counts what its name says (`verified`: how
            # many)
            if kind(value) is not None and not where.endswith((".totals", ".costs")):
                kinds.setdefault(key, {}).setdefault(str(kind(value)), set()).add(where)
            if key in SECONDS_KEYS and isinstance(value, float):
                assert value == round(value, 3), f"{where}.{key} = {value} is not rounded"
    # one thing, one name: no `max_iteration` beside `max_iterations`, no camelCase twin
    twins = {k: v for k, v in spellings.items() if len(v) > 1}
    assert not twins, f"one thing under several names: {twins}"
    mixed = {k: v for k, v in kinds.items() if len(v) > 1}
    assert not mixed, f"one name with several types: {mixed}"
    # the contract's words are there in all three
    events, status, report = outputs["events"], outputs["status"], outputs["report"]
    assert {"iteration", "max_iterations"} <= set(status) & set(report) & set(events[-1])
    assert status["max_iterations"] == report["max_iterations"] == events[-1]["max_iterations"]
    assert status["last_rotation"] == report["iteration"] == events[-1]["iteration"] == 3
    assert status["iteration"] == 3  # no reset yet: the count since the last reset agrees


def test_an_unpriced_run_has_a_null_cost_everywhere(project: Project) -> None:
    outputs = one_run(project)
    ended = outputs["events"][-1]
    assert ended["event"] == "run_ended", ended
    assert ended["usage"]["cost_usd"] is None  # not 0.0: nobody said it was free
    assert outputs["status"]["usage"]["cost_usd"] is None
    assert all(s["usage"]["cost_usd"] is None for s in outputs["status"]["specs"])
    assert outputs["report"]["totals"]["cost_usd"] is None
    (run_end,) = project.worklog("run_end")
    assert run_end["cost_usd"] is None  # the worklog's record says the same
    rotations = [e for e in outputs["events"] if e["event"] == "rotation_ended"]
    # a rotation that reported nothing has no usage at all
    assert rotations and all((e["usage"] or {}).get("cost_usd") is None for e in rotations)


def test_agent_output_events_say_whose_output_it_is(project: Project) -> None:
    events = one_run(project)["events"]
    current: dict[str, Any] = {}
    seen = 0
    for event in events:
        if event["event"] == "rotation_started":
            current = event
        if event["event"] == "agent_output":
            seen += 1
            assert (event["spec"], event["iteration"]) == (current["spec"], current["iteration"])
    assert seen >= 3
