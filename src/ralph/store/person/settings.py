"""The settings a person accepted, kept in the private store (rules/environment/settings.py decides
whose an
edit of `ralph.yaml` is; this module reads and records).

`ralph run` settles the settings before it starts (`settle`), records them once it holds the
project (`begin`), and notes the file as it left it when it ends (`finish`); `ralph accept`
takes a held edit (`accept`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import StateError
from ralph.rules.environment.settings import Decision, Record, decide
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.disk.private import STATE_DIR, ensure_store, store_dir

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig

CONFIG_FILE = "ralph.yaml"
SETTINGS_FILE = "settings.json"


@dataclass(frozen=True)
class Settled:
    """The settings of one run: the text it uses, and what taking the project will record."""

    current: str | None  # the file on disk
    decision: Decision

    def config(self) -> RalphConfig:
        from ralph.store.person.config import RalphConfig, parse_config

        text = self.decision.text
        return RalphConfig() if text is None else parse_config(text)

    @property
    def note(self) -> str | None:
        if not self.decision.held:
            return None
        return (
            f"{CONFIG_FILE} was changed during a run and no person accepted it: this run uses "
            "the settings a person last accepted (see the change: ralph accept)"
        )


def read_current(root: Path) -> str | None:
    """ralph.yaml as it is now; None when there is none (store/config.read_config_text)."""
    from ralph.store.person.config import read_config_text

    return read_config_text(root)


def load_record(root: Path, name: str = SETTINGS_FILE) -> Record | None:
    """A record of what a person accepted (the settings; `name`: another kept alike, the
    package sources)."""
    path = store_dir(root) / name
    try:
        data = load_json(path, f"ralph's record of what a person accepted ({path})")
    except StateError:
        data = None  # unreadable: as damaged as missing (a first run records it again)
    if not isinstance(data, dict):
        return None
    accepted, seen = data.get("accepted"), data.get("seen")
    if not all(v is None or isinstance(v, str) for v in (accepted, seen)):
        return None
    return Record(accepted, seen, data.get("running") is True)


def save_record(root: Path, record: Record, name: str = SETTINGS_FILE) -> None:
    data = {"accepted": record.accepted, "seen": record.seen, "running": record.running}
    write_json_atomic(ensure_store(root) / name, data)


def settle(root: Path) -> Settled:
    """The settings a run starting now uses (nothing is recorded yet)."""
    from ralph.store.live.liverun import is_live

    current = read_current(root)
    decision = decide(load_record(root), current, live=is_live(root / STATE_DIR))
    return Settled(current, decision)


def begin(root: Path, settled: Settled) -> None:
    """The run holds the project: a person's edit (or a first run's file) is now accepted, and
    until `finish` an edit of the file is the agent's."""
    record = load_record(root) or Record(settled.current, settled.current)
    if settled.decision.take:
        record = Record(settled.current, settled.current)
    save_record(root, Record(record.accepted, record.seen, running=True))


def finish(root: Path) -> None:
    """The run ends: the file as it leaves it (an edit the agent made stays held)."""
    record = load_record(root)
    if record is not None:
        save_record(root, Record(record.accepted, read_current(root), running=False))


def pending(root: Path) -> tuple[str | None, str | None] | None:
    """(accepted, now) when the file differs from what a person accepted; None otherwise."""
    record = load_record(root)
    current = read_current(root)
    if record is None or current == record.accepted:
        return None
    return record.accepted, current


def accepted_config(root: Path) -> RalphConfig:
    """The settings a person accepted (the file itself when nothing is held): for commands
    other than `run` that act on them."""
    from ralph.store.person.config import RalphConfig, parse_config

    held = pending(root)
    text = held[0] if held is not None else read_current(root)
    return RalphConfig() if text is None else parse_config(text)


def run_or_accepted(root: Path, config: RalphConfig | None) -> RalphConfig:
    """ralph.yaml as the run read it once (`config`), or outside a run (None) the settings a
    person accepted: a run never reads the file again."""
    return config if config is not None else accepted_config(root)


def settings_for(root: Path, command: str) -> tuple[RalphConfig, str | None]:
    """The settings a command other than `run` acts on (`doctor`, `agents`): those a run
    starting now would use, so an agent's edit of ralph.yaml (one made during a run) names no
    program any command runs until a person accepts it; and the line saying the file on disk
    differs, None when it does not."""
    settled = settle(root)
    if not settled.decision.held:
        return settled.config(), None
    return settled.config(), (
        f"{CONFIG_FILE} on disk differs from the settings a person accepted (it was changed "
        f"during a run): ralph {command} uses the accepted ones; see the change: ralph accept"
    )


def key(text: str | None) -> str:
    return hashlib.sha256(b"\0" if text is None else text.encode("utf-8")).hexdigest()


def accept(root: Path, shown: str) -> bool:
    """The file as it is now becomes the accepted settings, if it is still the one shown."""
    return accept_now(root, read_current(root), shown)


def accept_now(root: Path, now: str | None, shown: str, name: str = SETTINGS_FILE) -> bool:
    """`now` becomes what a person accepted (the record `name`), if it is what was shown."""
    if key(now) != shown:
        return False
    record = load_record(root, name)
    save_record(root, Record(now, now, running=record.running if record else False), name)
    return True
