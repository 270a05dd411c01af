"""The run's one event sink: every event is redacted, shown on the displays, then recorded; while
a person is asked to decide, what the displays would show waits until they have answered."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ralph.rules.text.redact import Redactor
from ralph.run.escalation import Choice, Decide, Escalation
from ralph.run.events import AgentOutput, CancelRequested, Event, Notice, RunEnded
from ralph.run.facts import FACTS, Fact
from ralph.run.recorder import Recorder

if TYPE_CHECKING:
    from ralph.run.observers import Observers

Emit = Callable[[Event], None]


class Sink:
    def __init__(
        self,
        display: Emit,
        recorder: Recorder,
        redactor: Redactor,
        decide: Decide | None,
        observe: Observers | None = None,
        watch: Callable[[Fact], None] | None = None,
    ) -> None:
        self._display: Emit | None = display
        # the observer plugins (ralph's webhook among them): hear each event and fact once it
        # is recorded, and an escalation before its choice; the lines of those that failed and
        # are left out come back, and are shown and recorded as notices
        self._observe = observe
        self._watch = watch  # an in-process watcher of the facts (a value passed in: tests')
        self.recorder = recorder
        self.redactor = redactor
        self._decide = decide
        # `ralph cancel` is seen by the cancel watch's thread, lanes' events by theirs: one
        # event at a time
        self._emitting = threading.RLock()
        self.ended = False  # RunEnded was emitted
        # While a person is asked, what the displays would show waits here (None: not held).
        self._held: list[Event] | None = None
        self._again: Event | None = None  # shown once more when the displays are released

    def emit(self, event: Event | Fact) -> None:
        """Show the event, then record it: whoever reads a record can rely on the display's
        line. Facts only the recorder needs never reach a display. A display that can no
        longer write (the terminal was closed, a pipe reader went away) is dropped rather
        than allowed to stop the run. Secrets are redacted first (agent output already was,
        where it entered ralph)."""
        if not isinstance(event, AgentOutput):
            event = self.redactor.scrub(event)
        with self._emitting:
            if isinstance(event, CancelRequested) and self.ended:
                return  # a request seen as the run ended: nothing left to stop
            self.ended = self.ended or isinstance(event, RunEnded)
            if isinstance(event, RunEnded) and self._held is not None:
                self.release()  # the run's end is always shown, after what waited
            if not isinstance(event, FACTS):
                if self._held is not None:
                    self._held.append(event)
                else:
                    self._show(event)
            self.recorder.handle(event)
            if self._watch is not None and isinstance(event, FACTS):
                with contextlib.suppress(Exception):  # a watcher never changes the run
                    self._watch(event)
            if self._observe is not None:
                for line in self._observe(event):
                    self.emit(Notice("warning", line))

    def _show(self, event: Event) -> None:
        if self._display is not None:
            try:
                self._display(event)
            except OSError:
                self._display = None

    def decide(self, e: Escalation) -> Choice:
        """A person's say on an escalation (headless: the configured choice). While they are
        asked, nothing else reaches the displays: the other lanes' lines and the panel would
        draw over the question. What came meanwhile is recorded at once and shown after."""
        if self._decide is None:
            return "abort"
        if self._observe is not None:  # told first: someone may have to come and choose
            for line in self._observe.asked(self.redactor.scrub(e)):
                self.emit(Notice("warning", line))
        held = self._held is not None  # already held (a lane's question): stays held
        self.hold()
        try:
            return self._decide(e)
        finally:
            if not held:
                self.release()

    def hold(self, again: Event | None = None) -> None:
        """From now on the displays wait (the recorder does not); `again` is shown once more
        when they are released, last: what a person must read before the run's end."""
        with self._emitting:
            if self._held is None:
                self._held = []
            self._again = again or self._again

    def release(self) -> None:
        """Show what waited, in order, then the event to show again."""
        with self._emitting:
            held, again, self._held, self._again = self._held or [], self._again, None, None
            for event in held:
                self._show(event)
            if again is not None:
                self._show(again)
