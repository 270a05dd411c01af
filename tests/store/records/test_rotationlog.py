"""store/records/rotationlog.py: one rotation's output, raw in ralph's record and in the copy for
people, readable in current.log (capped, no escape sequence); no log is ever overwritten and
none is written through a link."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.errors import UnsafePath
from ralph.store.disk.private import ensure_store
from ralph.store.disk.workspace import Workspace
from ralph.store.records import rotationlog
from ralph.store.records.rotationlog import RotationLog


def _log(ws: Workspace, n: int = 1, header: str = "# rotation 1: PROMPT.md") -> RotationLog:
    return RotationLog(ws.history_log("prompt", n), ws.current_log, header, ws.records)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = Workspace(tmp_path)
    workspace.ensure()
    ensure_store(tmp_path)
    return workspace


def test_raw_output_goes_to_the_record_and_its_copy_the_rendering_to_current(
    ws: Workspace,
) -> None:
    log = _log(ws)
    log.chunk("stdout", b'{"type": "text"}\n\x1b[31mred\x00\n')
    log.lines("stdout", ("said \x1b]52;c;Zm9v\x07 something",))
    log.close("# exit 0")
    raw = log.record.read_bytes()
    assert raw.startswith(b"# rotation 1: PROMPT.md\n") and b"\x1b[31mred\x00" in raw
    assert log.path.read_bytes() == raw  # the copy, byte for byte
    assert log.record.is_relative_to(ws.records) and log.path.is_relative_to(ws.history)
    current = ws.current_log.read_text()
    assert "said" in current and "\x1b" not in current and "\x07" not in current
    assert '{"type"' not in current and current.endswith("# exit 0\n")


def test_a_header_naming_an_odd_spec_is_printable(ws: Workspace) -> None:
    log = _log(ws, header="# rotation 1: specs/\x1b[2Ja.spec.md")
    log.close("")
    assert b"\x1b" not in log.record.read_bytes()


def test_numbers_restarted_after_a_reset_never_overwrite_a_log(ws: Workspace) -> None:
    first = _log(ws)
    first.close("first")
    second = _log(ws)  # rotation 1 again
    second.close("second")
    assert second.record.name == "001-2.log" and second.path.name == "001-2.log"
    assert first.record.read_bytes().endswith(b"first\n")


def test_current_log_is_capped_the_record_is_not(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rotationlog, "CURRENT_LOG_CAP", 100)
    log = _log(ws)
    for _ in range(10):
        log.chunk("stdout", b"x" * 50)
        log.lines("stdout", ("y" * 50,))
    log.close("end")
    current = ws.current_log.read_bytes()
    capped = b"\n[current.log capped; the history log has the rest]\n"
    assert current.endswith(capped) and len(current) == 100 + len(capped)
    assert len(log.record.read_bytes()) > 500


def test_a_copy_replaced_by_a_link_is_never_written_through(ws: Workspace, tmp_path: Path) -> None:
    target = tmp_path.parent / f"{tmp_path.name}-target"
    target.write_text("the person's\n")
    (ws.history / "prompt").mkdir(parents=True)
    (ws.history / "prompt" / "001.log").symlink_to(target)
    with pytest.raises(UnsafePath):
        _log(ws)
    assert target.read_text() == "the person's\n"
    ws.current_log.symlink_to(target)
    with pytest.raises(UnsafePath):
        _log(ws, 2)
    assert target.read_text() == "the person's\n"
