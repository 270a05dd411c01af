"""Atomic writes: an interrupt at any step of a write leaves the old file or the new one, and no
temporary file behind."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from ralph.store.disk import confined
from ralph.store.disk.files import write_text_atomic


def _line_of_the_last_cleanup() -> int:
    lines, start = inspect.getsourcelines(confined.write_atomic)
    return start + max(i for i, line in enumerate(lines) if line.strip() == "finally:")


def test_an_interrupt_at_any_step_of_a_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    # Python acts on a signal as a function is entered and as a call to C returns, so Ctrl-C
    # can land at each of those moments of a write: raise it at the 1st, 2nd, 3rd ... (in
    # ralph's code and in whatever it calls) until a write gets through. The cleanup itself is left
    # alone: no code can clean up after an interrupt inside its own cleanup.
    target = tmp_path / "state.json"
    target.write_text("old", encoding="utf-8")
    cleanup = _line_of_the_last_cleanup()
    code = confined.write_atomic.__code__
    for step in range(1, 5000):
        seen, cleaning = 0, False

        def profiler(frame: FrameType, event: str, arg: Any, step: int = step) -> Any:
            nonlocal seen, cleaning
            if frame.f_code is code and frame.f_lineno >= cleanup:
                cleaning = True
            if not cleaning and event in ("call", "c_return"):
                seen += 1
                if seen == step:
                    raise KeyboardInterrupt
            return None

        sys.setprofile(profiler)
        try:
            write_text_atomic(target, "new")
            done = True
        except KeyboardInterrupt:
            done = False
        finally:
            sys.setprofile(None)
        assert target.read_text(encoding="utf-8") in ("old", "new"), step
        assert [p.name for p in tmp_path.iterdir()] == ["state.json"], step
        if done:
            assert target.read_text(encoding="utf-8") == "new"
            assert step > 3  # the interrupts did land inside the write, at every call
            return
    raise AssertionError("the write never got through")
