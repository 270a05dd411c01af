"""What ralph asks of an agent for one rotation: the prompt, the spec, the mode, the limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ralph.process.request import Confinement
from ralph.rules.text.prompt import Mode


@dataclass(frozen=True)
class AgentRequest:
    prompt: str
    prompt_file: Path  # the prompt, also written to disk (RALPH_PROMPT_FILE)
    root: Path
    spec: str  # relative to root, forward slashes
    mode: Mode
    iteration: int
    state_dir: Path
    handoff_file: Path
    timeout: float | None = None
    idle_timeout: float | None = None
    kill_grace: float = 5.0
    specs: tuple[str, ...] = ()  # every spec, for a final verification (RALPH_SPECS)
    # The run's own secrets (the webhook URL): redacted from the output like the agent's.
    secrets: frozenset[str] = frozenset()
    confined: Confinement = field(kw_only=True)  # where it starts: the run's sandbox
    # W3C trace context of the rotation's span (TRACEPARENT, TRACESTATE) when the run is traced
    trace: tuple[tuple[str, str], ...] = ()
