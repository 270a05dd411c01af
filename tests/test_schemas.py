"""One machine vocabulary: every JSON output of ralph carries `schema_version` and follows the
JSON Schema `ralph schema NAME` prints. The outputs checked are real: a demo-agent run through the
real CLI (a process), and every `--json` command on the project it leaves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "src" / "ralph" / "schemas"


def ralph(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RALPH_DEMO_DELAY": "0", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(name: str, value: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator(name).iter_errors(value)]


def test_the_schemas_tell_a_wrong_shape() -> None:
    # the control: a schema that accepted anything would pass every test above
    status = {"schema_version": 1, "iteration": 0, "max_iterations": 20, "running": False,
              "complete": False, "specs": []}  # fmt: skip
    assert problems("status", status) == []
    assert problems("status", {k: v for k, v in status.items() if k != "schema_version"})
    assert problems("status", {**status, "running": "no"})
    spec = {"path": "a", "done_count": 4, "last_status": None, "modified_files": False,
            "last_hash": None, "needs_work": True}  # fmt: skip
    assert problems("status", {**status, "specs": [spec]})  # a counter past 3/3
    ended = {"schema_version": 1, "ts": 1.0, "event": "rotation_ended", "spec": "a"}
    assert problems("event", ended)  # a rotation_ended without its signal and counter
    assert problems("event", {**ended, "event": "some_later_event"}) == []  # open to new events
    assert problems("history", {"schema_version": 1, "rotations": [{"number": 1}]})
