"""One test command for several specs: the trap a new user falls into. A spec whose
`test_command` is the whole suite passes only once every other spec's new tests pass too, so
the specs wait on each other. When a DONE is refused by a command other specs share, the run
says so once, with the pattern that avoids it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ralph.rules.text.printable import printable

if TYPE_CHECKING:
    from ralph.checks.result import GateResult
    from ralph.specs.frontmatter import SpecMeta


def shared_tests(
    spec: str,
    command: str | None,
    gate: GateResult,
    metas: Mapping[tuple[str, str], tuple[SpecMeta | None, str | None]],
    told: set[tuple[str, str]],
) -> str | None:
    """The line saying that other specs share the test command that refused `spec`'s DONE
    (`metas`: the gate's front matters, by spec and content), once per spec and command in
    a run (`told` keeps which were said), else None."""
    failed = any(r.name == "test_command" and r.blocking for r in gate.results)
    if not command or not failed or (spec, command) in told:
        return None
    same = {path for (path, _), (m, _) in metas.items() if m and m.test_command == command}
    sharing = sorted(same - {spec})
    if not sharing:
        return None
    told.add((spec, command))
    return shared_tests_line(spec, command, sharing)


def shared_tests_line(spec: str, command: str, sharing: Sequence[str]) -> str:
    """The one line `ralph run` shows (`sharing`: the other specs with the same command)."""
    others = ", ".join(sharing[:3]) + (f" and {len(sharing) - 3} more" if len(sharing) > 3 else "")
    return printable(
        f"{spec}: its DONE was refused by `{command}`, which is also the test command of "
        f"{others}: if the failing tests are theirs, this spec waits for them. Give each spec "
        "its own tests (test_command: pytest -q tests/test_<this spec>.py) and put the whole "
        "suite in ralph.yaml's test_command, which the final verification runs"
    )
