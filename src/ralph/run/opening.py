"""What a run says as it starts (SpecRun.begin), as notices: the tests a person edited while
ralph was not running, what of the environment the checks hold, specs still a template, files
changed since the last run, and what waits for a person's say (pure: lines in, notices out)."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.rules.counts.specset import summary
from ralph.run.events import Notice
from ralph.run.tree import changed_since_last_run


def tests_notices(edited: Sequence[str], taken: bool, env_lines: Sequence[str]) -> list[Notice]:
    """Tests edited since the last run (`taken`: as a person's edit, the new baseline), and
    the environment the checks hold."""
    notices: list[Notice] = []
    if edited:
        more = f" and {len(edited) - 5} more" if len(edited) > 5 else ""
        shown = ", ".join(edited[:5]) + more
        if taken:
            notices.append(Notice("info", f"tests edited while ralph was not running: {shown}"))
        else:
            why = "changed after a run that was killed: not taken as a person's edit"
            notices.append(Notice("warning", f"tests {why} ({shown}); accept with `ralph accept`"))
    notices += [Notice("warning", line) for line in env_lines if line]
    return notices


def spec_notices(
    templates: Sequence[str],
    moved: tuple[str, ...] | None,
    dropped: tuple[str, ...],
    held: list[str],
    pending: Sequence[str],
) -> list[Notice]:
    """Specs still the template `ralph init` wrote, files changed since the last run (the
    verified specs it `dropped`), person-written specs `held` and ignore rules `pending` a
    person's say."""
    notices = [
        Notice(
            "warning",
            f"{template} is still the template `ralph init` wrote, so it is not run: "
            "describe what you want built there, or delete it",
        )
        for template in templates
    ]
    if dropped:
        notices.append(Notice("warning", changed_since_last_run(moved, dropped)))
    if held:
        notices.append(
            Notice(
                "warning",
                f"the specs a person wrote wait for a person: {summary(held)}; DONEs are "
                "refused until a person restores them or accepts it with `ralph accept`",
            )
        )
    if pending:
        notices.append(
            Notice(
                "warning",
                f"the ignore rules differ from the ones a person set: {pending[0]}; "
                "DONEs are refused until a person accepts them with `ralph accept`",
            )
        )
    return notices
