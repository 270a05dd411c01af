"""checks/authorship.py: only a person may change a spec's checks."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ralph.checks.authorship import agent_change, agent_front, front_digests, front_seen
from ralph.rules.counts.frontmark import FrontSeen
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.specset import front_digest

FRONT = "test_command: pytest -q\n"
TEXT = f"---\n{FRONT}---\n# a\n"


def spec(root: Path, text: str = TEXT, path: str = "specs/a.spec.md") -> Spec:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)
    return Spec(path, text, hashlib.sha256(text.encode()).hexdigest())


def test_front_matter_changed_during_the_rotation_is_the_agents(tmp_path: Path) -> None:
    began = spec(tmp_path)
    assert agent_change(tmp_path, began, None) is None
    assert front_seen(tmp_path, began) == FrontSeen(front_digest(FRONT), False)
    (tmp_path / began.path).write_text(TEXT + "more words, same checks\n")  # the body is free
    assert agent_change(tmp_path, began, None) is None
    (tmp_path / began.path).write_text("# a: no checks\n")
    why = agent_change(tmp_path, began, None)
    assert why is not None and "only a person may change them" in why
    assert front_seen(tmp_path, began) == FrontSeen(front_digest(None), True)


def test_front_matter_an_agent_wrote_is_marked_until_a_person_changes_it(tmp_path: Path) -> None:
    now = spec(tmp_path)
    mark = front_digest(FRONT)
    why = agent_change(tmp_path, now, mark)
    assert why is not None and "ralph accept" in why
    assert agent_front(now, mark) == FRONT
    other = front_digest("test_command: other\n")  # a person wrote something else since
    assert agent_change(tmp_path, now, other) is None and agent_front(now, other) is None
    assert agent_front(now, None) is None
    bare = spec(tmp_path, "# a\n")
    assert agent_front(bare, front_digest(None)) == ""  # the agent removed it


def test_every_specs_front_matter_digest(tmp_path: Path) -> None:
    spec(tmp_path)
    spec(tmp_path, "# b\n", "specs/b.spec.md")
    assert front_digests(tmp_path) == {
        "specs/a.spec.md": front_digest(FRONT),
        "specs/b.spec.md": front_digest(None),
    }
