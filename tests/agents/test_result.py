"""agents/result.py: why a rotation failed, in the agent's own last words on stderr (colours
removed, long lines cut), and the limit windows a rotation reported or its fault implies."""

from __future__ import annotations

from dataclasses import replace

from ralph.agents.result import (
    STDERR_LINE_CHARS,
    AgentFault,
    AgentResult,
    LimitInfo,
    Outcome,
    limits_of,
)
from ralph.process.request import ProcessResult

ENDED = ProcessResult(0, b"done\n", b"", 5, 0, 100.0, 160.0, False, False, False)


def result(**process: object) -> AgentResult:
    return AgentResult(replace(ENDED, **process), None)  # type: ignore[arg-type]


def test_a_rotation_that_ended_on_its_own_without_error_did_not_fail() -> None:
    assert result().failure is None and result().output_text == "done\n"
    own_words = AgentResult(ENDED, None, error="API Error: overloaded")
    assert own_words.failure == "API Error: overloaded"  # exit 0 does not hide it


def test_why_it_failed_ralphs_stop_first_then_the_agents_last_words() -> None:
    assert result(interrupted=True, exit_code=None).failure == "interrupted"
    assert result(timed_out=True, exit_code=None).failure == "timed out after 60 s"
    crashed = result(exit_code=1, stderr_tail=b"warming up\n\x1b[31mTraceback: boom\x1b[0m\n\n")
    assert crashed.failure == "exit code 1: Traceback: boom"
    assert result(exit_code=2).failure == "exit code 2"


def test_stderr_lines_are_the_last_few_and_cut_when_long() -> None:
    noisy = result(exit_code=1, stderr_tail=b"".join(b"line %d\n" % n for n in range(9)))
    assert noisy.stderr_lines(2) == ("line 7", "line 8")
    (long,) = result(stderr_tail=b"x" * 1000).stderr_lines()
    assert len(long) == STDERR_LINE_CHARS and long.endswith("…")


def test_limits_are_the_clis_own_else_the_window_a_rate_limit_refused() -> None:
    said = LimitInfo("session", 0.5, 1_800_000_000.0)
    assert limits_of(Outcome(limits=(said,))) == (said,)
    weekly = AgentFault("rate_limit", "weekly limit", 1_800_000_000.0, "weekly")
    assert limits_of(Outcome(fault=weekly)) == (
        LimitInfo("weekly", 1.0, 1_800_000_000.0, "rejected"),
    )
    # the controls: a short limit, an auth error and nothing at all record no window
    short = AgentFault("rate_limit", "429", None, "short")
    assert short.short and limits_of(Outcome(fault=short)) == ()
    assert limits_of(Outcome(fault=AgentFault("auth", "no key"))) == ()
    assert limits_of(Outcome()) == ()
