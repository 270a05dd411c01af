"""Which JSON Schemas ralph has, their version, and the text of each (a data file here)."""

from __future__ import annotations

# Every `--json` output, the `--report json=FILE` report and each `--output json` event carries
# `schema_version`: the version of the shape its schema here describes. Removing or retyping a
# key raises it; a key added where a schema allows more keys does not.
SCHEMA_VERSION = 1

# name -> what it describes (`ralph schema --help` and docs/reference/json.md list them)
SCHEMAS = {
    "status": "ralph status --json",
    "history": "ralph history --json",
    "agents": "ralph agents --json",
    "plan": "ralph plan --json",
    "inspect": "ralph inspect --json",
    "doctor": "ralph doctor --json",
    "report": "the --report json=FILE file of ralph run",
    "event": "one line of ralph run --output json",
    "seal": "ralph seal --list --json",
    "plugins": "ralph plugins --json",
    "hook": "the argument every observer hook of a plugin gets (src/ralph/plugins/hookspecs.py)",
}


class UnknownSchema(LookupError):
    """A schema name ralph does not have."""


def schema_text(name: str) -> str:
    """The JSON Schema of output `name`, as the file in the package holds it."""
    if name not in SCHEMAS:
        raise UnknownSchema(name)
    from importlib.resources import files

    return files("ralph.schemas").joinpath(f"{name}.json").read_text(encoding="utf-8")
