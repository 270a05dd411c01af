"""plugins/contained.py: a plugin's call with a time limit; what it raises or how long it hangs
never reaches the caller."""

from __future__ import annotations

import threading

from ralph.plugins.contained import Failed, Worker, call_once


def test_a_result_comes_back_and_a_raise_becomes_a_reason() -> None:
    assert call_once(lambda x: x + 1, {"x": 1}) == 2  # the control

    def boom() -> None:
        raise ValueError("bad")

    assert call_once(boom, {}) == Failed("raised ValueError: bad")


def test_a_hang_is_given_up_on_at_the_limit() -> None:
    release = threading.Event()
    try:
        result = call_once(release.wait, {}, limit=0.05)
        assert result == Failed("took over 0.05 s", hung=True)
    finally:
        release.set()


def test_a_worker_calls_in_order_and_survives_a_raise() -> None:
    seen: list[int] = []

    def note(n: int) -> None:
        seen.append(n)

    worker = Worker("t")
    assert worker.call(note, {"n": 1}, 30) is None
    assert isinstance(worker.call(lambda: 1 / 0, {}, 30), Failed)
    worker.call(note, {"n": 2}, 30)
    assert seen == [1, 2]
