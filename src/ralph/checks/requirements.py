"""What the prompt tells the agent its DONE must pass: the spec's checks in a few lines, and why
its last DONE was refused."""

from __future__ import annotations

from ralph.checks.context import ROLES_BY_MODE, check_name
from ralph.specs.frontmatter import SpecMeta

# what a method asks of the agent, where its command alone does not say it
RULES = {
    "revert": (
        "at least one test case you add must fail on the code as it was when the run began, "
        "and every one must pass now (run at the DONE that would reach 3/3)"
    ),
}


def requirements(meta: SpecMeta | None, error: str | None, mode: str, refusal: str | None) -> str:
    """The prompt's "What your DONE must pass" section ("" when there is nothing to say):
    `error` is the front matter's when it is invalid, `refusal` the last refused DONE's report."""
    lines: list[str] = []
    if error is not None:
        lines.append(
            f"- The front matter of this spec is invalid ({error}); a DONE is "
            "refused until it is fixed."
        )
    if meta is not None and meta.gates_done:
        if meta.outcome:
            lines.append(f"- Outcome: {meta.outcome}")
        lines.extend(f"- Acceptance criterion: {c}" for c in meta.criteria)
        if meta.test_command:
            lines.append(f"- Test command (must exit 0): `{meta.test_command}`")
        for check in meta.checks:
            what = RULES.get(check.method) or getattr(check.config, "command", None) or check.method
            optional = "" if check.required else " (optional: only warns)"
            lines.append(f"- Check {check_name(check, meta)} ({check.method}): {what}{optional}")
        if meta.verification == "strict":
            lines.append(
                "- Strict tier: every checkbox of this spec must be ticked, and "
                "ralph compares that claim with the file on disk."
            )
        for role_name in ROLES_BY_MODE.get(mode, ()):
            role = meta.role(role_name)
            if role is not None:
                lines.append(
                    f"- As {role_name}: when this is true: {role.description}, print "
                    f"`<promise>{role.promise}</promise>` on its own line "
                    f"(verified by {role.verification_method})."
                )
    if not lines and refusal is None:
        return ""
    text = "## What your DONE must pass\n"
    if lines:
        text += (
            "ralph runs these when you say DONE and counts the DONE only if they pass; "
            "a refused DONE counts as CONTINUE.\n" + "\n".join(lines) + "\n"
        )
    if refusal is not None:
        text += f"\n### Your last DONE on this spec was refused\n{refusal}\n"
    return text
