"""schemas/catalog.py: every machine output has its schema, each a file of the package, named
here once; what `--json` prints is tests/test_schemas.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer

from ralph.cli import app
from ralph.schemas.catalog import SCHEMA_VERSION, SCHEMAS, UnknownSchema, schema_text

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "src" / "ralph" / "schemas"


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
