"""schemas/catalog.py: every machine output has its schema, each a file of the package, named
here once, and tell a wrong shape; what a real run prints is tests/e2e/test_schemas.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from jsonschema import Draft202012Validator

from ralph.cli import app
from ralph.schemas.catalog import SCHEMA_VERSION, SCHEMAS, UnknownSchema, schema_text

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "src" / "ralph" / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(name: str, value: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator(name).iter_errors(value)]


def test_every_command_with_json_has_a_schema() -> None:
    commands: dict[str, Any] = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    with_json = {
        name
        for name, command in commands.items()
        if any("--json" in param.opts for param in command.params)
    }
    assert {"status", "history", "agents", "plan"} <= with_json
    assert with_json <= set(SCHEMAS), f"--json without a schema: {with_json - set(SCHEMAS)}"
    assert {"status", "report", "history", "agents", "plan", "event"} <= set(SCHEMAS)
    assert sorted(p.stem for p in SCHEMA_DIR.glob("*.json")) == sorted(SCHEMAS)


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_each_schema_is_the_packages_file_at_this_version(name: str) -> None:
    text = schema_text(name)
    assert text == (SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8")
    assert json.loads(text)["properties"]["schema_version"]["const"] == SCHEMA_VERSION


@pytest.mark.parametrize("name", ["stats", "../pyproject", "status.json", ""])
def test_a_name_not_in_the_catalog_reads_no_file(name: str) -> None:
    with pytest.raises(UnknownSchema):
        schema_text(name)


def test_the_schemas_tell_a_wrong_shape() -> None:
    # the control: a schema that accepted anything would pass every test of real outputs
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
