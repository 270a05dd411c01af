"""commands/runreports.py: the reports of a run (JUnit XML, JSON, the GitHub step summary, the
notification)."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ralph.commands.runreports import write_reports
from ralph.store.disk import files
from ralph.store.disk.files import write_text_through
from ralph.ui.runreport import RunReport

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks, FIFOs, /dev")


REPORT = RunReport(exit_code=0, reason="all specs verified")


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("old and longer than the report " * 100)
    write_text_through(path, "new\n")
    assert path.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_a_symlink_stays_a_link_and_its_target_gets_the_report(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "real.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "r.json"
    link.symlink_to(Path("reports") / "real.json")  # relative, as `ln -s` makes them
    write_reports(REPORT, junit=None, report_json=link)
    assert link.is_symlink()
    assert json.loads(target.read_text())["exit_code"] == 0
    assert sorted(p.name for p in target.parent.iterdir()) == ["real.json"]


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "j.xml"
    link.symlink_to(tmp_path / "out" / "junit.xml")
    write_reports(REPORT, junit=link, report_json=None)
    assert link.is_symlink()
    ET.parse(tmp_path / "out" / "junit.xml")


def test_a_named_pipe_is_written_into_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "r.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    # The reader comes after the writer has started waiting for it, as with `cat r.fifo &`.
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    timer = threading.Timer(0.3, reader.start)
    timer.start()
    write_reports(REPORT, junit=None, report_json=fifo)
    timer.join()
    reader.join(10)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert json.loads(got[0])["exit_code"] == 0


def test_a_named_pipe_nobody_reads_fails_in_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(files, "FIFO_WAIT", 0.2)
    fifo = tmp_path / "r.fifo"
    os.mkfifo(fifo)
    write_reports(REPORT, junit=None, report_json=fifo)
    assert "nobody reads this named pipe" in capsys.readouterr().err
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_character_device_stays_a_device(tmp_path: Path) -> None:
    # /dev/null is the one device safe to write to; a link to it must not become a file.
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    write_text_through(link, "report\n")
    write_text_through(Path("/dev/null"), "report\n")
    assert stat.S_ISCHR(Path("/dev/null").stat().st_mode)
    assert link.is_symlink()


def test_a_report_inside_the_project_reached_by_a_persons_link_above_it_is_inside(
    tmp_path: Path,
) -> None:
    # the person's /alias -> /real: a path through it that lands in the project is the
    # project's, and a link an agent planted there is refused, not written through
    from ralph.errors import UnsafePath

    project = tmp_path / "real" / "proj"
    project.mkdir(parents=True)
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    secret = tmp_path / "bashrc"
    secret.write_text("mine\n")
    (project / "j.xml").symlink_to(secret)
    with pytest.raises(UnsafePath, match=r"j\.xml"):
        write_text_through(tmp_path / "alias" / "proj" / "j.xml", "report\n", project=project)
    assert secret.read_text() == "mine\n"
    (project / "j.xml").unlink()
    write_text_through(tmp_path / "alias" / "proj" / "j.xml", "report\n", project=project)
    assert (project / "j.xml").read_text() == "report\n"


def test_a_persons_link_outside_the_project_into_it_is_written_at_its_real_place(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    (project / "out").mkdir(parents=True)
    link = tmp_path / "ci.xml"
    link.symlink_to(project / "out" / "j.xml")
    write_text_through(link, "report\n", project=project)
    assert link.is_symlink()
    assert (project / "out" / "j.xml").read_text() == "report\n"
