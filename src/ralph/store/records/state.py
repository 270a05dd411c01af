"""`.ralph/state.json` on disk: strict loading (naming the bad key), atomic saving.

A small hand-written validator rather than Pydantic: `ralph status` must start in under 150 ms
and Pydantic's import alone costs about 200 ms here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.rules.counts.breaker import STATES as BREAKER_STATES
from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.state import (
    MAX_COUNT,
    OVERRIDES,
    SCHEMA_VERSION,
    STATUSES,
    FinalVerification,
    SpecState,
    State,
    Tally,
    state_to_json,
)
from ralph.rules.evidence.testcounts import TestCounts
from ralph.store.disk.files import RESET_HINT, load_json, write_json_atomic
from ralph.store.disk.private import STATE_FILE, ensure_store, project_of, store_dir


class _Checker:
    """Reads one JSON document, naming the file and the key of the first thing that is wrong."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, key: str, problem: str) -> StateError:
        return StateError(f"{self.where}: {key}: {problem}", RESET_HINT)

    def int_(self, data: dict[str, Any], key: str, prefix: str, lo: int, hi: int | None) -> int:
        value = data.get(key, lo)
        if not isinstance(value, int) or isinstance(value, bool) or value < lo:
            raise self.fail(prefix + key, f"expected a whole number >= {lo}, got {value!r}")
        if hi is not None and value > hi:
            raise self.fail(prefix + key, f"expected at most {hi}, got {value!r}")
        return value

    def tally(self, data: dict[str, Any], key: str, prefix: str) -> Tally:
        """An optional usage record (state files before usage counting have none)."""
        raw = data.get(key)
        if raw is None:
            return Tally()
        if not isinstance(raw, dict):
            raise self.fail(prefix + key, f"expected an object, got {raw!r}")
        sub = f"{prefix}{key}."
        cost = raw.get("cost_usd", 0.0)
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not cost >= 0:
            raise self.fail(sub + "cost_usd", f"expected a number >= 0, got {cost!r}")
        return Tally(
            rotations=self.int_(raw, "rotations", sub, 0, None),
            input_tokens=self.int_(raw, "input_tokens", sub, 0, None),
            output_tokens=self.int_(raw, "output_tokens", sub, 0, None),
            cost_usd=float(cost),
            unpriced=self.int_(raw, "unpriced", sub, 0, None),
        )

    def bool_(self, data: dict[str, Any], key: str, prefix: str) -> bool:
        value = data.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(prefix + key, f"expected true or false, got {value!r}")
        return value

    def obj(self, data: dict[str, Any], key: str) -> dict[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "expected an object")
        return value

    def opt_str(self, data: dict[str, Any], key: str, prefix: str) -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise self.fail(prefix + key, f"expected a string or null, got {value!r}")
        return value


def state_from_json(data: Any, where: str = "state.json") -> State:
    check = _Checker(where)
    if not isinstance(data, dict):
        raise check.fail("(top level)", "expected a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise check.fail("schema_version", f"expected a whole number, got {version!r}")
    if version > SCHEMA_VERSION:
        raise StateError(
            f"{where} was written by a newer ralph (schema {version}; this ralph reads "
            f"{SCHEMA_VERSION})",
            "upgrade ralph (the ralph-spec-loop distribution); the file was left untouched",
        )
    raw_specs = data.get("specs", [])
    if not isinstance(raw_specs, list):
        raise check.fail("specs", "expected a list")
    specs: list[SpecState] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_specs):
        prefix = f"specs[{i}]."
        if not isinstance(raw, dict):
            raise check.fail(f"specs[{i}]", "expected an object")
        path = raw.get("path")
        if not isinstance(path, str) or not path:
            raise check.fail(prefix + "path", f"expected a non-empty string, got {path!r}")
        if path in seen:
            raise check.fail(prefix + "path", f"{path!r} appears twice")
        seen.add(path)
        status = check.opt_str(raw, "last_status", prefix)
        if status is not None and status not in STATUSES:
            raise check.fail(prefix + "last_status", f"unknown status {status!r}")
        modified = raw.get("modified_files", False)
        if not isinstance(modified, bool):
            raise check.fail(prefix + "modified_files", f"expected true or false, got {modified!r}")
        specs.append(
            SpecState(
                path=path,
                done_count=check.int_(raw, "done_count", prefix, 0, MAX_COUNT),
                last_status=status,
                last_hash=check.opt_str(raw, "last_hash", prefix),
                modified_files=modified,
                rotations=check.int_(raw, "rotations", prefix, 0, None),
                implement_rotations=check.int_(raw, "implement_rotations", prefix, 0, None),
                review_rotations=check.int_(raw, "review_rotations", prefix, 0, None),
                blocked=check.opt_str(raw, "blocked", prefix),
                agent_front_matter=check.opt_str(raw, "agent_front_matter", prefix),
                usage=check.tally(raw, "usage", prefix),
                last_changed_by=check.opt_str(raw, "last_changed_by", prefix),
                override=_choice(check, raw, "override", prefix, OVERRIDES),
                tests=_counts(check, raw, "tests", prefix),
                best_tests=_counts(check, raw, "best_tests", prefix),
                refused=check.opt_str(raw, "refused", prefix),
            )
        )
    max_iteration = data.get("max_iterations")
    if max_iteration is not None:
        max_iteration = check.int_(data, "max_iterations", "", 0, None)
    iteration = check.int_(data, "iteration", "", 0, None)
    # files from before numbering outlived a reset: the iteration was the last number
    last = check.int_(data, "last_rotation", "", 0, None) if "last_rotation" in data else 0
    return State(
        schema_version=SCHEMA_VERSION,
        iteration=iteration,
        last_rotation=max(last, iteration),
        max_iteration=max_iteration,
        current_spec=check.opt_str(data, "current_spec", ""),
        specs=tuple(specs),
        usage=check.tally(data, "usage", ""),
        agent_usage=_agent_usage(check, data),
        final=_final_from_json(check, check.obj(data, "final_verification")),
        breaker=_breaker_from_json(check, check.obj(data, "breaker")),
        lane_breakers=tuple(
            (str(path), _breaker_from_json(check, raw, f"lane_breakers.{path}."))
            for path, raw in check.obj(data, "lane_breakers").items()
        ),
        person_specs=_person_specs(check, data),
    )


def _person_specs(check: _Checker, data: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    if data.get("person_specs") is None:
        return None
    found = check.obj(data, "person_specs")
    for path in found:
        check.opt_str(found, path, "person_specs.")
    return tuple(sorted((path, str(digest)) for path, digest in found.items()))


def _choice(
    check: _Checker, data: dict[str, Any], key: str, prefix: str, allowed: tuple[str, ...]
) -> str | None:
    value = check.opt_str(data, key, prefix)
    if value is not None and value not in allowed:
        raise check.fail(prefix + key, f"expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _counts(check: _Checker, raw: dict[str, Any], key: str, prefix: str) -> TestCounts | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise check.fail(prefix + key, "expected an object")
    runners = value.get("runners", [])
    if not isinstance(runners, list) or not all(isinstance(r, str) for r in runners):
        raise check.fail(prefix + key + ".runners", "expected a list of names")
    where = f"{prefix}{key}."
    return TestCounts(
        check.int_(value, "passed", where, 0, None),
        check.int_(value, "failed", where, 0, None),
        check.int_(value, "skipped", where, 0, None),
        tuple(runners),
    )


def _final_from_json(check: _Checker, raw: dict[str, Any]) -> FinalVerification:
    prefix = "final_verification."
    return FinalVerification(
        passed=check.bool_(raw, "passed", prefix),
        failures=check.int_(raw, "failures", prefix, 0, None),
        bypassed=check.bool_(raw, "bypassed", prefix),
        accepted=check.bool_(raw, "accepted", prefix),
        last_failure=check.opt_str(raw, "last_failure", prefix),
    )


def _breaker_from_json(check: _Checker, raw: Any, prefix: str = "breaker.") -> Breaker:
    if not isinstance(raw, dict):
        raise check.fail(prefix.rstrip("."), "expected an object")
    state = _choice(check, raw, "state", prefix, BREAKER_STATES) or "CLOSED"
    opened_at = raw.get("opened_at")
    if opened_at is not None and (
        not isinstance(opened_at, (int, float)) or isinstance(opened_at, bool)
    ):
        raise check.fail(prefix + "opened_at", f"expected a number or null, got {opened_at!r}")
    reasons = raw.get("reasons", [])
    if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
        raise check.fail(prefix + "reasons", "expected a list of strings")
    return Breaker(
        state=state,  # type: ignore[arg-type]  # checked against STATES above
        failures=check.int_(raw, "failures", prefix, 0, None),
        opened_at=None if opened_at is None else float(opened_at),
        reasons=tuple(reasons),
        subject=check.opt_str(raw, "subject", prefix),
        agents=check.opt_str(raw, "agents", prefix),
    )


def _agent_usage(check: _Checker, data: dict[str, Any]) -> tuple[tuple[str, Tally], ...]:
    raw = data.get("agents")
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise check.fail("agents", f"expected an object, got {raw!r}")
    return tuple((str(name), check.tally(raw, str(name), "agents.")) for name in raw)


def load_state(path: Path) -> State:
    """The saved matrix; a fresh State when there is none; StateError when it is damaged.

    For `.ralph/state.json` that is ralph's own copy in the private store when there is one:
    the file in `.ralph/` is for people and scripts to read, and what an agent did to it
    decides nothing (the next run restores it, store/private.restore_state).
    """
    root = project_of(path)
    own = store_dir(root) / STATE_FILE if root is not None else None
    if own is not None and own.exists():
        path, label = own, f"ralph's own copy of state.json ({own})"
    else:
        label = _label(path)
    data = load_json(path, label)
    return State() if data is None else state_from_json(data, label)


def save_state(path: Path, state: State) -> None:
    """The store's copy first (the one that decides), then the one people read."""
    data = state_to_json(state)
    root = project_of(path)
    if root is not None:
        write_json_atomic(ensure_store(root) / STATE_FILE, data)
        if path.is_symlink():  # never written through a link someone planted
            path.unlink()
    if not path.parent.exists() and not path.parent.is_symlink():  # `.ralph/` deleted: anew
        path.parent.mkdir(parents=True)
    write_json_atomic(path, data)


def _label(path: Path) -> str:
    parent = path.parent.name
    return f"{parent}/{path.name}" if parent else path.name
