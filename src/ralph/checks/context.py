"""What every check method is given: the gate's input, the check to run, and the method's shape.

A check (`checks:` in the front matter), a role's criteria (`coder:` ...) and the spec's
`test_command` all become a `CheckItem`, so a method runs them alike. A method names the phase
of the gate it belongs to; the runner (`ralph.checks.runner`) decides what a phase means.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel

from ralph.checks.claims import VState
from ralph.checks.judge import Judge
from ralph.checks.result import CheckCache, CheckResult
from ralph.process.launcher import Launcher
from ralph.specs.frontmatter import SpecMeta
from ralph.specs.plugincheck import AnyCheck

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig

# local: cheap, read what is at hand (every one runs); command: run a command (every one runs, so
# the agent learns about all failures at once); costly: an agent as judge (only while all passed)
Phase = Literal["local", "command", "costly"]
ROLES_BY_MODE: Mapping[str, tuple[str, ...]] = {
    # The coder's criteria gate the implementing DONE, the reviewer's a reviewing DONE; the
    # tester and QA criteria gate every DONE. The final verification (VERIFY) has no promise.
    "IMPLEMENT": ("coder", "tester", "qa"),
    "REVIEW": ("reviewer", "tester", "qa"),
}


# (a room's suffix, root-relative path -> the bytes to place there, or None to leave it out) ->
# (the room "<tree's room>.<suffix>": room A's files with those replaced, built or synced now;
# the environment commands run with there)
RoomMaker = Callable[[str, Mapping[str, bytes | None]], tuple[Path, dict[str, str]]]


@dataclass(frozen=True)
class GateInput:
    root: Path  # the tree: the spec (the strict tier's boxes) is read there
    spec_path: str
    spec_text: str
    meta: SpecMeta
    mode: str = "VERIFY"  # IMPLEMENT, REVIEW or VERIFY: which role criteria apply
    output: str = ""  # the agent's own output (echoes of the prompt already removed)
    prompt: str = ""  # the rotation's prompt: lines of it quoted back never count as a promise
    judge: Judge | None = None
    cache: CheckCache | None = None
    tree: str | None = None  # the tree state's key; None: never cached
    env: Mapping[str, str] | None = None  # the check commands' environment (default: ralph's)
    on_transition: Callable[[VState, VState], None] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    run_root: Path | None = None  # where commands run (the clean room); None: `root`
    # the DONE that would reach 3/3, or the final verification: where costly checks decide
    decisive: bool = True
    start: Path | None = None  # the code when the run began (store/rooms/startcopy.py), if taken
    rooms: RoomMaker | None = None  # other rooms of this tree (checks/place.py)
    # where its commands start (the run's sandbox) and what runs them: always said
    launcher: Launcher = field(kw_only=True)
    project: RalphConfig | None = None  # the run's ralph.yaml; None: the accepted one


@dataclass(frozen=True)
class CheckItem:
    """One check to run, whichever part of the front matter it came from."""

    name: str
    method: str
    config: BaseModel  # the method's own model: ExternalConfig for external, ...
    required: bool = True
    cache: bool = True  # False: re-run even when the tree is unchanged
    promise: str | None = None  # a role's promise: what a failed judge falls back to
    role: str | None = None  # the role whose criteria these are (run only if its promise held)


Dispatch = Callable[[CheckItem], CheckResult]  # runs an item by its method (stages)


class Method(Protocol):
    """A check method: one module under ralph.checks, one line in ralph.checks.registry."""

    @property
    def phase(self) -> Phase: ...

    def run(self, gi: GateInput, item: CheckItem, dispatch: Dispatch) -> CheckResult: ...


def check_name(check: AnyCheck, meta: SpecMeta) -> str:
    """The name a check is reported by: its `name`, else its method (numbered when repeated)."""
    if check.name:
        return check.name
    same = [c for c in meta.checks if c.method == check.method]
    return check.method if len(same) == 1 else f"{check.method}-{same.index(check) + 1}"
