"""Pure prompt building: what the agent reads at the start of each fresh rotation."""

from __future__ import annotations

from dataclasses import dataclass

from ralph.events import Mode
from ralph.signals import PROTOCOL

_MODE_TEXT = {
    "IMPLEMENT": (
        "You are implementing this spec. Read the handoff below, pick up where the previous "
        "rotation stopped, make real progress on the remaining requirements, and run the "
        "project's tests where there are any. Tick each acceptance checkbox in the spec "
        "(`- [ ]` -> `- [x]`) once it is really met."
    ),
    "REVIEW": (
        "You are reviewing this spec with fresh eyes: a previous rotation said it is done. "
        "Check every requirement against the code as it is now; run the tests. If anything is "
        "missing or wrong, fix it (ralph will notice the change and review again). Say DONE "
        "only if the work is complete and correct; if you changed nothing, say DONE."
    ),
}


@dataclass(frozen=True)
class PromptInput:
    spec_path: str
    spec_text: str
    mode: Mode
    iteration: int
    max_iteration: int
    done_count: int
    handoff_path: str  # relative to the project root
    handoff_text: str
    guardrails_path: str
    guardrails_text: str
    other_specs: tuple[tuple[str, int], ...] = ()  # (path, done_count) of the other specs
    checks_text: str = ""  # what a DONE must pass (front matter), the last refusal (donegate)


def build_prompt(p: PromptInput) -> str:
    others = "\n".join(f"- {path}: {count}/3" for path, count in p.other_specs) or "- (none)"
    handoff = p.handoff_text.strip() or "(empty: this is the first rotation on this spec)"
    guardrails = p.guardrails_text.strip() or "(empty)"
    checks = f"\n{p.checks_text.rstrip()}\n" if p.checks_text.strip() else ""
    return f"""\
# ralph rotation {p.iteration}/{p.max_iteration} [{p.mode}]

Spec: {p.spec_path} (verification {p.done_count}/3)

{_MODE_TEXT[p.mode]}

You start with a fresh context: everything you know comes from the files. Before you end,
rewrite the handoff file `{p.handoff_path}` with what you did, what you found and what is left,
for the next rotation. Add project-wide lessons (commands that work, traps to avoid) to
`{p.guardrails_path}`; every agent on every spec reads it. Do not edit other files under
`.ralph/`, except your spec itself (tick its boxes) and `.ralph/question.md` (to ask a question).

## The spec ({p.spec_path})
{p.spec_text.rstrip()}
{checks}
## Handoff from the previous rotation ({p.handoff_path})
{handoff}

## Guardrails ({p.guardrails_path})
{guardrails}

## Other specs (they must keep passing; do not break them)
{others}

{PROTOCOL}"""
