"""store/live/cancel.py: `ralph cancel` as a request file the live run watches: meant for one run
(a stale request stops no later run), `--now` upgrading `after`, reaching the work in hand.

`ralph cancel` from the command line is tests/commands/test_cancel.py's."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.live.cancel import (
    CANCEL_FILE,
    CancelMode,
    CancelWatch,
    read_request,
    request_cancel,
)

ME, OTHER = 4242, 4343


def test_a_request_is_for_the_run_it_names(tmp_path: Path) -> None:
    assert read_request(tmp_path, ME) is None
    request_cancel(tmp_path, ME, "after")
    assert read_request(tmp_path, ME) == "after"
    assert read_request(tmp_path, OTHER) is None
    request_cancel(tmp_path, ME, "now")
    assert read_request(tmp_path, ME) == "now"


def test_a_damaged_or_odd_request_is_none(tmp_path: Path) -> None:
    for text in ("{cut", "[]", json.dumps({"pid": ME, "mode": "later"})):
        (tmp_path / CANCEL_FILE).write_text(text)
        assert read_request(tmp_path, ME) is None, text


def test_a_stale_request_is_removed_as_the_watch_begins(tmp_path: Path) -> None:
    request_cancel(tmp_path, OTHER, "now")  # left by an earlier run
    with CancelWatch(tmp_path, ME) as watch:
        assert not (tmp_path / CANCEL_FILE).exists()
        assert not watch.requested and not watch.now.is_set()


def test_a_request_for_this_run_made_before_it_watched_is_kept(tmp_path: Path) -> None:
    request_cancel(tmp_path, ME, "after")
    with CancelWatch(tmp_path, ME) as watch:
        assert watch.requested and watch.mode == "after"
    assert not (tmp_path / CANCEL_FILE).exists()  # done with: removed as the watch ends


def test_now_upgrades_after_and_reaches_the_linked_work(tmp_path: Path) -> None:
    heard: list[CancelMode] = []
    with CancelWatch(tmp_path, ME) as watch:
        watch.on_request = heard.append
        with watch.linked() as checks:
            request_cancel(tmp_path, ME, "after")
            watch.poll()
            watch.poll()  # the same request again: told once
            assert watch.mode == "after" and not watch.now.is_set() and not checks.is_set()
            request_cancel(tmp_path, ME, "now")
            assert watch.now.wait(60) and checks.wait(60)  # the watching thread saw it
        with watch.linked() as late:
            assert late.is_set()  # work begun after `--now` is stopped at once
    assert heard == ["after", "now"]


def test_a_linked_event_set_for_its_own_reasons_is_no_cancel(tmp_path: Path) -> None:
    with CancelWatch(tmp_path, ME) as watch, watch.linked() as checks:
        checks.set()
        assert not watch.requested and not watch.now.is_set()
