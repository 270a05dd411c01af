"""A plugin's function called with a time limit, in a thread of its own: what it raises or how
long it hangs never reaches the caller, who gets its result or the reason it has none."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LIMIT = 5.0  # seconds a plugin's function may take before it is given up on


@dataclass(frozen=True)
class Failed:
    """Why a plugin's call gave nothing: `raised ValueError: bad` or `took over 5 s`."""

    reason: str
    hung: bool = False


class Worker:
    """One plugin's calls, in order, on one daemon thread: a plugin that hangs holds its own
    thread only (and dies with the process: it never keeps ralph from exiting)."""

    def __init__(self, name: str) -> None:
        self._calls: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=f"plugin {name}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            self._calls.get()()

    def call(self, fn: Callable[..., Any], kwargs: dict[str, Any], limit: float) -> Any:
        """`fn(**kwargs)`'s result, or a `Failed`."""
        box: list[Any] = []
        done = threading.Event()

        def run() -> None:
            try:
                box.append(fn(**kwargs))
            except BaseException as exc:
                box.append(Failed(f"raised {type(exc).__name__}: {exc}"))
            finally:
                done.set()

        self._calls.put(run)
        if not done.wait(limit):
            return Failed(f"took over {limit:g} s", hung=True)
        return box[0]


def call_once(fn: Callable[..., Any], kwargs: dict[str, Any], limit: float = LIMIT) -> Any:
    """`fn(**kwargs)` on a daemon thread of its own: its result, or a `Failed`."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn(**kwargs))
        except BaseException as exc:
            box.append(Failed(f"raised {type(exc).__name__}: {exc}"))

    thread = threading.Thread(target=run, name="plugin call", daemon=True)
    thread.start()
    thread.join(limit)
    return box[0] if box else Failed(f"took over {limit:g} s", hung=True)
