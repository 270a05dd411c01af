"""A rotation's history log made readable again: its raw output read by the adapter of the agent
that printed it, as current.log showed it live (Claude's stream-json becomes its text)."""

from __future__ import annotations

import re
from collections.abc import Sequence

# The agent named in a history log's header line (`# ralph rotation 3 [REVIEW] a.md agent=claude
# started=...`) and the lines ralph itself wrote around the agent's output.
_AGENT = re.compile(r" agent=(\S+) started=")
_RALPH_LINES = ("# ralph rotation ", "# ended: ")


def agent_of(lines: Sequence[str]) -> str | None:
    """The agent a history log's header names, or None."""
    for line in lines[:1]:
        found = _AGENT.search(line)
        if found:
            return found.group(1)
    return None


def readable(agent: str | None, lines: Sequence[str]) -> list[str]:
    """`lines` of a history log as `agent`'s adapter renders them; as they are for an agent it
    does not know (a custom command prints plain text)."""
    from ralph.agents.registry import registry

    # A pool member's name is its CLI's, possibly with a model or a number after it.
    found = registry().get(re.split(r"[^a-z0-9_-]", (agent or "").lower(), maxsplit=1)[0])
    if found is None:
        return list(lines)
    parser = found().parser()
    out: list[str] = []
    batch: list[str] = []
    for line in lines:
        if line.startswith(_RALPH_LINES):
            out.extend(parser.feed("stdout", batch))
            batch = []
            out.append(line)
        else:
            batch.append(line)
    out.extend(parser.feed("stdout", batch))
    return out
