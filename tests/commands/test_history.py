"""commands/history.py: `ralph history`: past rotations and one rotation's log, read from
ralph's records in its store, never from the copies in `.ralph/` (the agent's to write)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.commands.history import HistoryError, find_log, log_text, normalise_spec, pick_spec
from ralph.errors import UsageError
from ralph.store.disk.workspace import Workspace
from tests.conftest import Project
from tests.sample_records import rotation
from tests.schemas.test_catalog import problems

LOG = ".ralph/history/a/001.log"


def _recorded(p: Project, text: str = "the agent's words\n<ralph>DONE</ralph>\n") -> Path:
    ws = Workspace(p.root)
    ws.worklog.parent.mkdir(parents=True, exist_ok=True)
    records = [{"ts": 1.0, "event": "run_start"}, *rotation(1, "specs/a.spec.md", 1, 5, log=LOG)]
    ws.worklog.write_text("".join(json.dumps(r) + "\n" for r in records))
    record = ws.record_of(LOG)
    assert record is not None
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(text)
    return record


def test_the_rotations_are_listed_from_ralphs_worklog(project: Project) -> None:
    assert project.run("history").stdout.strip() == "no rotations recorded yet"
    _recorded(project)
    data = json.loads(project.run("history", "--json").stdout)
    assert problems("history", data) == []
    assert [r["spec"] for r in data["rotations"]] == ["specs/a.spec.md"]


def test_a_rotations_log_is_ralphs_record_not_the_agents_copy(project: Project) -> None:
    record = _recorded(project)
    copy = project.root / LOG
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text("forged by the agent\n")
    assert find_log(project.root, 1)[1] == record
    res = project.run("history", "1")
    assert "the agent's words" in res.stdout and "forged" not in res.stdout


def test_a_log_that_is_a_link_or_missing_is_one_line(project: Project, tmp_path: Path) -> None:
    record = _recorded(project)
    record.unlink()
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n")
    record.symlink_to(secret)
    with pytest.raises(HistoryError, match="no log for rotation 1"):
        find_log(project.root, 1)
    with pytest.raises(HistoryError, match="no log for rotation 7"):
        find_log(project.root, 7)


def test_a_log_is_made_readable_and_its_tail_kept(tmp_path: Path) -> None:
    log = tmp_path / "001.log"
    log.write_text("one\n\x1b[31mtwo\x1b[0m\nthree\n")
    assert log_text(log, None) == "one\ntwo\nthree\n"
    assert log_text(log, 2) == "two\nthree\n"
    assert log_text(log, 0) == ""


def test_a_spec_is_named_by_an_unambiguous_part_of_its_path() -> None:
    known = ["specs/classify.spec.md", "specs/parse.spec.md", "specs/parse-more.spec.md"]
    assert pick_spec("classify", known) == "specs/classify.spec.md"
    assert pick_spec("specs/gone.spec.md", known) == "specs/gone.spec.md"
    with pytest.raises(UsageError, match="matches 2 specs"):
        pick_spec("parse", known)


def test_a_spec_path_is_read_as_the_worklog_names_it(tmp_path: Path) -> None:
    assert normalise_spec(tmp_path, "./specs/a.spec.md") == "specs/a.spec.md"
    assert normalise_spec(tmp_path, "specs\\a.spec.md") == "specs/a.spec.md"
    assert normalise_spec(tmp_path, str(tmp_path / "specs" / "a.spec.md")) == "specs/a.spec.md"
