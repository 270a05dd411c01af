"""What a person can do about the checks that refused a DONE, in one line, pointing the right
way: the work (the agent fixes it: its next prompt says why), the checks' environment (a
package the tree declares is not installed there, or a package source waits for a person's
say), the check itself (its command cannot start: the spec's front matter), or a sealed test
(`ralph seal`)."""

from __future__ import annotations

from ralph.checks.result import CheckResult, GateResult
from ralph.checks.sealed import NAME as SEALED_NAME
from ralph.errors import docs_page

PERSON = "what a person can do: "
WORK_HINT = "let the agent fix the work (its next prompt says why)"
# how store/pkgsources.why_held's line begins: a source held for a person, not a build that failed
HELD_SOURCE = "a package source no person accepted"
SOURCE_HINT = (
    "if that source is yours, accept it (`ralph accept`); if not, let the agent undo it "
    "(its next prompt says why)"
)
START_HINT = (
    "a check's command cannot start: fix it in the spec's front matter, or install what it runs"
)
ENVIRONMENT_HINT = (
    "ralph builds the checks' environment when what the tree declares changes during a run: "
    "the agent declares it in package.json and package-lock.json both (`npm install x` "
    "writes them), or in requirements*.txt or pyproject.toml, never only in node_modules or "
    "the `.venv`; one declared before the run is yours to install in the project (`npm ci`, "
    "or `pip install` into its `.venv`) before ralph runs again "
    f"({docs_page('explanation/environment.md')})"
)
# sealed tests are ralph's copies, in its store, not in the spec
SEALED_HINT = (
    "if a sealed test is wrong, seal the corrected file again (ralph seal FILE --spec SPEC) "
    "or unseal it (ralph unseal FILE); else let the agent fix the work"
)


def hint_for(gate: GateResult) -> str:
    """The hint for the failed checks of `gate`: a sealed test's alone, or beside what the
    other failures need when that is more than the agent's work."""
    failed = [r for r in gate.results if not r.passed and not r.skipped]
    sealed = any(r.name == SEALED_NAME for r in failed)
    hint = _hint([r for r in failed if r.name != SEALED_NAME])
    if not sealed:
        return hint
    return SEALED_HINT if hint == WORK_HINT else f"{hint}; {SEALED_HINT}"


def _hint(failed: list[CheckResult]) -> str:
    missing = next((r.not_installed for r in failed if r.not_installed), None)
    if missing is not None:
        return f"{missing}: {ENVIRONMENT_HINT}"
    if any(r.name == "environment" and HELD_SOURCE in r.summary for r in failed):
        return SOURCE_HINT
    if any(cannot_start(r) for r in failed):
        return START_HINT
    return WORK_HINT


def cannot_start(result: CheckResult) -> bool:
    """Did the check's command itself fail to start: no such working directory or program
    (the shell's 127), or a program it may not run (126)?"""
    return result.summary.startswith(("cannot start", "exit code 127,", "exit code 126,"))
