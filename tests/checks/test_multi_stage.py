"""checks/multi_stage.py: named stages in order; the commands played in-process."""

from __future__ import annotations

from pathlib import Path

import ralph.checks.multi_stage  # noqa: F401 -- the method these tests run through run_gate
from ralph.checks.runner import run_gate
from tests.fakes.commands import Commands


def spec(root: Path, front: str) -> str:
    (root / "a.spec.md").write_text(f"---\n{front}---\n# a\n")
    return "a.spec.md"


def test_required_stages_gate_and_optional_ones_only_warn(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - name: qa\n    method: multi_stage\n    config:\n      stages:\n"
        "        - {name: style, method: external, required: false, config: {command: style}}\n"
        "        - {name: unit, method: external, config: {command: unit}}\n"
        "        - {name: e2e, method: external, config: {command: e2e}}\n"
        "        - {name: last, method: external, config: {command: last}}\n",
    )
    fake = Commands({"style": (1, ""), "unit": (0, ""), "e2e": (4, ""), "last": (0, "")})
    gate = run_gate(path, tmp_path, launcher=fake.launcher)
    assert gate.reasons == ("qa: stage 'e2e': exit code 4, expected 0",)
    assert gate.warnings == ("qa: stage 'style': exit code 1, expected 0",)
    assert fake.lines() == ["style", "unit", "e2e"]  # require_all: stops at the first failure
    fake.plays = {**fake.plays, "e2e": (0, "")}
    gate = run_gate(path, tmp_path, launcher=fake.launcher)
    assert gate.passed and gate.results[0].summary == "all 4 stages passed (1 optional failed)"


def test_require_all_false_runs_every_stage(tmp_path: Path) -> None:
    path = spec(
        tmp_path,
        "checks:\n  - method: multi_stage\n    config:\n      require_all: false\n"
        "      stages:\n"
        "        - {name: a, method: external, config: {command: a}}\n"
        "        - {name: b, method: external, config: {command: b}}\n",
    )
    gate = run_gate(path, tmp_path, launcher=Commands({"a": (1, ""), "b": (2, "")}).launcher)
    assert gate.reasons == (
        "multi_stage: stage 'a': exit code 1, expected 0; stage 'b': exit code 2, expected 0",
    )
