"""checks/string_match.py: a `<promise>X</promise>` counts only when the agent printed it; a
prompt line quoted back never does, and the final verification asks for none."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.context import CheckItem, GateInput
from ralph.checks.result import CheckResult
from ralph.checks.string_match import StringMatch, promises
from ralph.process.launcher import PLAIN
from ralph.specs.checkconfig import StringMatchConfig
from ralph.specs.frontmatter import SpecMeta

PROMPT = "Print <promise>AUTH_DONE</promise> when the login works.\nGo."


def gate(output: str, mode: str = "IMPLEMENT", prompt: str = PROMPT) -> GateInput:
    meta = SpecMeta()
    return GateInput(Path(), "a.spec.md", "# a\n", meta, mode, output, prompt, launcher=PLAIN)


def never(item: CheckItem) -> CheckResult:
    raise AssertionError(f"string_match runs no other check ({item.name})")


def check(gi: GateInput, promise: str | None = "auth_done") -> CheckResult:
    item = CheckItem("login", "string_match", StringMatchConfig(promise=promise))
    return StringMatch().run(gi, item, never)


def test_the_agents_own_promise_passes_whatever_its_case_and_spacing() -> None:
    result = check(gate("done.\n<promise> Auth_Done </promise>\n"))
    assert result.passed and result.summary == "<promise>auth_done</promise>"


def test_a_prompt_line_quoted_back_is_no_promise() -> None:
    echoed = gate(PROMPT + "\nI am done")
    assert promises(echoed) == set()
    assert not check(echoed).passed
    assert "did not print <promise>auth_done</promise>" in check(echoed).summary


def test_the_final_verification_asks_for_no_promise_and_none_configured_fails() -> None:
    verify = check(gate("", mode="VERIFY"))
    assert verify.passed and verify.skipped
    assert not check(gate("<promise>x</promise>"), promise=None).passed
