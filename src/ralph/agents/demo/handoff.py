"""The handoff note the demo leaves for the next rotation."""

from __future__ import annotations

from ralph.agents.demo.modes import Outcome
from ralph.agents.demo.narrator import TAG
from ralph.agents.demo.spec import Spec


def render_handoff(spec: Spec, mode: str, iteration: str, outcome: Outcome) -> str:
    """The note the next rotation (a fresh context) starts from."""
    lines = [
        f"# Handoff: {spec.path}",
        "",
        f"Written by the demo agent after rotation {iteration or '?'} ({mode}).",
        "",
        "## Done this rotation",
        *(f"- {item}" for item in outcome.done or ["Nothing changed."]),
        "",
        "## What remains",
    ]
    left = [box for box in spec.boxes if not box.checked]
    lines += [f"- [ ] {box.label}" for box in left] or ["- Nothing: every box is ticked."]
    lines += ["", "## Signal", "", f"{outcome.signal}: {outcome.reason}.", ""]
    return TAG.sub("[tag]", "\n".join(lines))
