"""Pure prompt building: what the agent reads at the start of each fresh rotation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ralph.rules.text.printable import printable
from ralph.rules.text.signals import PROTOCOL, VERIFY_PROTOCOL

# JUDGE: a semantic check's judge (ralph.checks.judge), answering VERIFIED or NOT_VERIFIED;
# VERIFY: the final verification once every spec is at 3/3
Mode = Literal["IMPLEMENT", "REVIEW", "JUDGE", "VERIFY"]

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
    recent_errors: tuple[str, ...] = ()  # the last lines of .ralph/errors.log
    question: str | None = None  # a question an agent asked, with the user's answer below
    answer: str | None = None


def _errors_section(recent_errors: tuple[str, ...]) -> str:
    if not recent_errors:
        return ""
    lines = "\n".join(f"    {line}" for line in recent_errors)
    return f"\n## Recent failures (.ralph/errors.log): do not repeat them\n{lines}\n"


def _answer_section(question: str | None, answer: str | None) -> str:
    if question is None or answer is None:
        return ""
    return (
        "\n## A question an agent asked, and the human's answer\n"
        "An earlier rotation stopped to ask a human. Act on the answer.\n\n"
        f"### Question (.ralph/question.md)\n{question.strip()}\n\n"
        f"### Answer (.ralph/answer.md)\n{answer.strip()}\n"
    )


def build_prompt(p: PromptInput) -> str:
    """The rotation's prompt. What stays the same from one rotation of a spec to the next comes
    first (ralph's instructions, the protocol, the guardrails, the spec, the task of the mode)
    and what changes every rotation last (the handoff, which grows, then the rotation number, the
    counter, the other specs' counters, recent failures): consecutive prompts of a spec share the
    longest byte-identical prefix, which the providers' prompt caches serve at a fraction of the
    price."""
    # Names as a person can read them (the agent finds its spec by $RALPH_SPEC).
    spec = printable(p.spec_path)
    others = (
        "\n".join(f"- {printable(path)}: {count}/3" for path, count in p.other_specs) or "- (none)"
    )
    handoff = p.handoff_text.strip() or "(empty: this is the first rotation on this spec)"
    guardrails = p.guardrails_text.strip() or "(empty)"
    checks = f"\n{p.checks_text.rstrip()}\n" if p.checks_text.strip() else ""
    extra = _answer_section(p.question, p.answer) + _errors_section(p.recent_errors)
    return f"""\
# ralph: a rotation on {spec}

You start with a fresh context: everything you know comes from the files. Before you end,
rewrite the handoff file `{p.handoff_path}` with what you did, what you found and what is left,
for the next rotation. Add project-wide lessons (commands that work, traps to avoid) to
`{p.guardrails_path}`; every agent on every spec reads it. Do not edit other files under
`.ralph/`, except your spec itself (tick its boxes) and `.ralph/question.md` (to ask a question).

Never delete, skip or weaken a test to make it pass: ralph refuses a DONE over weakened tests. If
the tests contradict the spec, do not change the tests: explain the conflict in
`.ralph/question.md` and answer QUESTION.

{PROTOCOL}
## Guardrails ({p.guardrails_path})
{guardrails}

## The spec ({spec})
{p.spec_text.rstrip()}

## Your task
{_MODE_TEXT[p.mode]}
{checks}
## Handoff from the previous rotation ({p.handoff_path})
{handoff}

## This rotation: {p.iteration}/{p.max_iteration} [{p.mode}], verification {p.done_count}/3
Other specs (they must keep passing; do not break them):
{others}
{extra}"""


@dataclass(frozen=True)
class VerifyInput:
    iteration: int
    max_iteration: int
    attempt: int  # 1 for the first verification of this work
    max_failures: int
    specs: tuple[tuple[str, str], ...]  # (path, text) of every spec
    test_commands: tuple[str, ...]  # what ralph itself will run too
    report_path: str  # the verifier's handoff, relative to the root
    guardrails_path: str
    guardrails_text: str
    last_failure: str | None = None  # what the previous verification found
    recent_errors: tuple[str, ...] = ()


def build_verification_prompt(v: VerifyInput) -> str:
    """The final, independent verification: every spec at 3/3, now check it all again."""
    specs = "\n\n".join(f"### {printable(path)}\n{text.rstrip()}" for path, text in v.specs)
    if v.test_commands:
        tests = "\n".join(f"- `{cmd}`" for cmd in v.test_commands)
        tests = (
            "Run the test commands and read their results; ralph runs them too, and a failing "
            f"command fails this verification whatever you answer:\n{tests}"
        )
    else:
        tests = (
            "No test command is configured: find how this project is tested (README, Makefile, "
            "CI files) and run it."
        )
    previous = (
        f"\n## What the previous verification found\n{v.last_failure.strip()}\n"
        if v.last_failure
        else ""
    )
    guardrails = v.guardrails_text.strip() or "(empty)"
    return f"""\
# ralph final verification {v.attempt} (rotation {v.iteration}/{v.max_iteration}) [VERIFY]

Every spec below is at 3/3: agents said DONE and two fresh reviews found nothing to change.
You are the independent verifier. Trust nothing you did not check yourself.

1. {tests}
2. Review the code for quality and completeness against every spec, requirement by
   requirement; a ticked checkbox is a claim, not a proof.
3. If anything is missing or wrong: untick its checkbox in the spec (`- [x]` -> `- [ ]`) or add
   a new unticked checkbox saying what is needed, explain it in `{v.report_path}`, and answer
   VERIFY_FAIL. The specs you change are worked on again. Do not fix the code yourself.
4. Answer VERIFY_PASS only if the tests pass and every requirement is really met.

After {v.max_failures} failed verifications in a row the run stops for a human.
{previous}{_errors_section(v.recent_errors)}
## Guardrails ({v.guardrails_path})
{guardrails}

## The specs
{specs}

{VERIFY_PROTOCOL}"""
