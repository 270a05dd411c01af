"""The environment the checks run in, as the person set it up: the agent's changes to it are
judged at a DONE that would count and at the final verification.

When a run starts, ralph records what every Python environment a check may use holds, and the
project's `node_modules` test runners (store/envrecord.py); at a DONE it scans them again and
refuses what changes how the tests run rather than the code under test (rules/envchange.py).
After a run that was killed the earlier record is kept: the changes its agent made stay the
agent's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from ralph.checks.result import CheckResult, GateResult
from ralph.rules.envchange import Folder, judge, summary
from ralph.specs.frontmatter import SpecMeta
from ralph.store import envrecord


class EnvGuard:
    HINT = (
        "undo the change to the environment (reinstall what was changed); if a person made "
        "it, start the run again: ralph records the environments anew when a run starts"
    )

    def __init__(self, root: Path) -> None:
        self.root = root
        self._start: envrecord.Scan | None = None  # the record, read once

    def start(
        self, env: Mapping[str, str], metas: Sequence[SpecMeta | None], *, keep: bool
    ) -> None:
        """When a run starts: record the environments, if any spec's DONE runs checks (the
        specs' front matter: `metas`); `keep` (the last run was killed) keeps the record
        there is."""
        if not any(m is not None and m.gates_done for m in metas):
            return
        self._start = envrecord.load(self.root) if keep else None
        if self._start is None:
            self._start = envrecord.scan(self.root, env)
            envrecord.save(self.root, self._start)

    def findings(self, env: Mapping[str, str]) -> list[str]:
        """One line per refused change since the run started ([] when none)."""
        before = self._start = self._start or envrecord.load(self.root)
        if before is None:  # no check was due when the run started: from now on
            self._start = envrecord.scan(self.root, env)
            envrecord.save(self.root, self._start)
            return []
        now = envrecord.scan(self.root, env, {p: f.kind for p, f in before.items()})
        out: list[str] = []
        project = str(self.root.resolve())
        for place, after in now.items():
            old = before.get(place, Folder(after.kind))
            if old == after:
                continue
            out += judge(
                place,
                old,
                after,
                project=project,
                record=partial(_record, Path(place)),
                bytecode_ok=partial(envrecord.bytecode_ok, Path(place)),
            )
        return out

    def refusal(self, env: Mapping[str, str]) -> str | None:
        """The one reason a DONE is refused for, or None."""
        return summary(self.findings(env))

    def final(
        self, found: list[tuple[str, GateResult]], env: Mapping[str, str]
    ) -> list[tuple[str, GateResult]]:
        """The final verification's results: every spec's fails while the environment is
        changed (one look, only when some spec's checks ran)."""
        bent = self.refusal(env) if found else None
        if bent is None:
            return found
        failed = CheckResult("environment", "environment", False, summary=bent)
        return [(path, GateResult(False, (*gate.results, failed))) for path, gate in found]


def _record(folder: Path, info: str) -> str:
    """The RECORD of the dist-info folder `info` in `folder`, as it is now."""
    return envrecord.read(folder / info / "RECORD")
