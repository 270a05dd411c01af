"""The handoff note the demo leaves for the next rotation."""

from __future__ import annotations

from ralph.agents.demo.modes import Outcome
from ralph.agents.demo.narrator import TAG
from ralph.agents.demo.spec import Spec


def render_handoff(spec: Spec, mode: str, iteration: str, outcome: Outcome) -> str:
    """The note the next rotation (a fresh context) starts from. Which rotation wrote it comes
    last: the note is part of the next prompt, whose unchanged beginning a provider can cache."""
    lines = [
        f"# Handoff: {spec.path}",
        "",
        "## Done this rotation",
        *(f"- {item}" for item in outcome.done or ["Nothing changed."]),
        "",
        "## What remains",
    ]
    left = [box for box in spec.boxes if not box.checked]
    lines += [f"- [ ] {box.label}" for box in left] or ["- Nothing: every box is ticked."]
    lines += ["", "## Signal", "", f"{outcome.signal}: {outcome.reason}.", ""]
    lines += [f"Written by the demo agent after rotation {iteration or '?'} ({mode}).", ""]
    return TAG.sub("[tag]", "\n".join(lines))
