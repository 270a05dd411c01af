"""store/records/ownreports.py: the report files ralph wrote in the project are its own while they
hold what it wrote; changed, they are the person's (or the agent's) like any other file.

Whole runs whose reports land in the project are tests/e2e/test_own_reports.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.errors import UnsafePath
from ralph.store.disk.private import store_dir
from ralph.store.records.ownreports import MAX_REPORTS, REPORTS_FILE, own_reports, record_reports


def _project(tmp_path: Path) -> Path:
    (tmp_path / ".ralph").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    return tmp_path


def test_a_report_is_ralphs_while_it_holds_what_ralph_wrote(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "out" / "junit.xml").write_text("<testsuites/>")
    record_reports(root, [root / "out" / "junit.xml"])
    assert own_reports(root) == ("out/junit.xml",)
    (root / "out" / "junit.xml").write_text("<testsuites/> edited")
    assert own_reports(root) == ()


def test_only_regular_files_inside_the_project_are_recorded(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    (root / "out" / "link.json").symlink_to(outside)
    (root / ".ralph" / "r.json").write_text("{}")
    (root / "out" / "real.json").write_text("{}")
    (root / "out" / "inner.json").symlink_to(root / "out" / "real.json")
    reports = [outside, root / "out" / "link.json", root / ".ralph" / "r.json"]
    record_reports(root, [*reports, root / "out" / "inner.json"])
    assert own_reports(root) == ()
    assert not (store_dir(root) / REPORTS_FILE).exists()  # nothing new: nothing written


def test_a_refused_run_records_nothing(tmp_path: Path) -> None:
    (tmp_path / "r.xml").write_text("x")
    record_reports(tmp_path, [tmp_path / "r.xml"])  # no .ralph/: the run never began
    assert not (store_dir(tmp_path) / REPORTS_FILE).exists()


def test_the_record_keeps_the_most_recent_ones(tmp_path: Path) -> None:
    root = _project(tmp_path)
    paths = []
    for n in range(MAX_REPORTS + 5):
        (root / "out" / f"{n}.xml").write_text(str(n))
        paths.append(root / "out" / f"{n}.xml")
    record_reports(root, paths)
    assert "out/0.xml" not in own_reports(root)
    record_reports(root, [paths[10]])  # written again: the most recent now
    kept = own_reports(root)
    assert len(kept) == MAX_REPORTS and kept[-1] == "out/10.xml" and "out/5.xml" in kept


def test_a_damaged_record_starts_again(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "out" / "r.xml").write_text("x")
    record_reports(root, [root / "out" / "r.xml"])
    record = store_dir(root) / REPORTS_FILE
    for text in ("{cut", json.dumps({"reports": ["out/r.xml"]})):
        record.write_text(text)
        assert own_reports(root) == ()


def test_a_dot_ralph_link_is_said_before_anything_is_read(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".ralph").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePath):
        own_reports(tmp_path)
