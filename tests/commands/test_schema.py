"""commands/schema.py: `ralph schema [NAME]` prints the JSON Schema of one of ralph's machine
outputs, or their list; an unknown name is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from ralph.cli import app
from ralph.commands import schema as schema_command
from ralph.schemas.catalog import SCHEMA_VERSION, SCHEMAS

SCHEMA_DIR = Path(schema_command.__file__).resolve().parents[1] / "schemas"


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_ralph_schema_prints_each_schema(name: str) -> None:
    res = CliRunner().invoke(app, ["schema", name])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.stdout)
    Draft202012Validator.check_schema(printed)
    assert printed == json.loads((SCHEMA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    assert printed["properties"]["schema_version"]["const"] == SCHEMA_VERSION


def test_ralph_schema_lists_the_names_and_refuses_an_unknown_one() -> None:
    listed = CliRunner().invoke(app, ["schema"])
    assert listed.exit_code == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(SCHEMAS)
    res = CliRunner().invoke(app, ["schema", "stats"])
    assert res.exit_code == 2
    assert res.stdout == ""
    error, hint = res.stderr.splitlines()
    assert error == "error: ralph schema: no schema named 'stats'"
    assert hint.startswith("hint: name one of: status, history")
