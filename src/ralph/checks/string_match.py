"""The `string_match` method: `<promise>X</promise>` in the agent's own output.

A prompt line quoted back never counts as a promise, and the final verification (which judges
the tree, not what the coder printed back then) does not ask for one.
"""

from __future__ import annotations

import re

from ralph.checks.context import ROLES_BY_MODE, CheckItem, Dispatch, GateInput, Phase
from ralph.checks.result import CheckResult
from ralph.plugins.hookspecs import hookimpl
from ralph.specs.checkconfig import StringMatchConfig

PROMISE = re.compile(r"<promise>\s*(.+?)\s*</promise>", re.IGNORECASE | re.DOTALL)


class StringMatch:
    phase: Phase = "local"

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult:
        assert isinstance(item.config, StringMatchConfig)
        name, promise, required = item.name, item.config.promise, item.required
        if promise is None:
            return CheckResult(name, "string_match", False, required, "no promise configured")
        if gi.mode not in ROLES_BY_MODE:
            return CheckResult(
                name, "string_match", True, required, "not applicable here", skipped=True
            )
        if promise.casefold() in promises(gi):
            return CheckResult(
                name, "string_match", True, required, f"<promise>{promise}</promise>"
            )
        return CheckResult(
            name,
            "string_match",
            False,
            required,
            f"the agent did not print <promise>{promise}</promise>",
        )


def promises(gi: GateInput) -> set[str]:
    """The promises the agent itself printed: prompt lines quoted back do not count."""
    quoted = {line.strip() for line in gi.prompt.splitlines() if PROMISE.search(line)}
    own = "\n".join(line for line in gi.output.splitlines() if line.strip() not in quoted)
    return {m.group(1).strip().casefold() for m in PROMISE.finditer(own)}


@hookimpl
def ralph_check_methods() -> dict[str, StringMatch]:
    return {"string_match": StringMatch()}
