"""The strict tier's claim check: the verification state machine (100 % line and branch
coverage, enforced by `make test`) and the checkbox count it compares with the claim."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ralph.checks.claims import (
    READ_TIMEOUT_MS,
    RETRY_DELAY_MS,
    Boxes,
    Claim,
    VerificationMachine,
    VState,
    compare,
    count_boxes,
    should_verify,
)
from ralph.checks.runner import run_gate

DONE_SPEC = "# s\n- [x] one\n* [X] two\n1. [x] three\n"
OPEN_SPEC = "# s\n- [x] one\n- [ ] two\n"


class Reads:
    """A scripted disk: each read returns (or raises) the next item; the last one repeats."""

    def __init__(self, *items: Boxes | OSError | None) -> None:
        self.items = list(items)
        self.count = 0

    def __call__(self) -> Boxes | None:
        item = self.items[min(self.count, len(self.items) - 1)]
        self.count += 1
        if isinstance(item, OSError):
            raise item
        return item


def machine(
    reads: Reads, *, max_retries: int = 1, timeout_ms: int = 1000
) -> tuple[VerificationMachine, list[float], list[object]]:
    sleeps: list[float] = []
    seen: list[object] = []
    m = VerificationMachine(
        reads,
        sleep=sleeps.append,
        on_transition=lambda a, b: seen.append((a, b)),
        max_retries=max_retries,
        timeout_ms=timeout_ms,
    )
    return m, sleeps, seen


class TestVerificationLoop:
    def test_strict_tier_verifies(self) -> None:
        assert should_verify("strict") is True

    def test_standard_tier_does_not(self) -> None:
        assert should_verify("standard") is False

    def test_matching_status_and_count_pass(self) -> None:
        assert compare(Claim(), Boxes(3, 0)) is None
        assert compare(Claim("incomplete", 2), Boxes(5, 2)) is None

    def test_mismatched_status_fails_with_details(self) -> None:
        assert compare(Claim(), Boxes(3, 1)) == (
            "status: claimed complete, on disk incomplete (1 of 3 boxes unticked)"
        )
        assert compare(Claim(), Boxes(1, 1)) == (
            "status: claimed complete, on disk incomplete (1 of 1 box unticked)"
        )

    def test_mismatched_count_fails_with_details(self) -> None:
        assert compare(Claim("incomplete", 1), Boxes(3, 2)) == "count: claimed 1 open, on disk 2"

    def test_missing_spec_is_a_mismatch(self) -> None:
        assert compare(Claim(), None) == "the spec file is gone"

    def test_defaults_are_the_seeds_figures(self) -> None:
        m = VerificationMachine(Reads(Boxes(1, 0)))
        assert (m.retry_delay_ms, m.timeout_ms, m.max_retries) == (100, 1000, 1)
        assert (RETRY_DELAY_MS, READ_TIMEOUT_MS) == (100, 1000)


class TestVerificationStateMachine:
    def test_match_reads_then_passes(self) -> None:
        m, sleeps, seen = machine(Reads(Boxes(2, 0)))
        out = m.run()
        assert out.passed and out.state is VState.PASS and out.attempts == 1
        assert seen == [
            (VState.CLAIMED, VState.READ_STATE),
            (VState.READ_STATE, VState.MATCH),
            (VState.MATCH, VState.PASS),
        ]
        assert list(out.transitions) == seen
        assert sleeps == []

    def test_mismatch_retries_once_after_100_ms_and_then_passes(self) -> None:
        m, sleeps, seen = machine(Reads(Boxes(2, 1), Boxes(2, 0)))
        out = m.run(Claim())
        assert out.passed and out.attempts == 2
        assert sleeps == [0.1]
        assert (VState.MISMATCH, VState.RETRY) in seen
        assert (VState.RETRY, VState.READ_STATE) in seen

    def test_mismatch_on_retry_escalates(self) -> None:
        m, sleeps, seen = machine(Reads(Boxes(2, 1)))
        out = m.run()
        assert not out.passed and out.state is VState.ESCALATE and out.attempts == 2
        assert out.details == "status: claimed complete, on disk incomplete (1 of 2 boxes unticked)"
        assert sleeps == [0.1]
        assert seen[-1] == (VState.MISMATCH, VState.ESCALATE)

    def test_no_retry_configured_escalates_at_once(self) -> None:
        m, sleeps, _ = machine(Reads(Boxes(2, 1)), max_retries=0)
        assert m.run().attempts == 1
        assert sleeps == []

    def test_read_error_is_a_mismatch(self) -> None:
        m, _, seen = machine(Reads(PermissionError(13, "Permission denied"), Boxes(1, 0)))
        out = m.run()
        assert out.passed
        assert (VState.READ_STATE, VState.MISMATCH) in seen
        m2, _, _ = machine(Reads(OSError("weird")))
        assert m2.run().details == "cannot read the spec: weird"

    def test_spec_gone_escalates(self) -> None:
        m, _, _ = machine(Reads(None))
        assert m.run().details == "the spec file is gone"

    def test_timeout_reading_is_handled_as_mismatch(self) -> None:
        release = threading.Event()

        def stuck() -> Boxes:
            release.wait(30)  # never set while the machine waits: only its timeout ends this
            return Boxes(1, 0)

        m, sleeps, seen = machine(Reads(Boxes(1, 0)), timeout_ms=20)
        m.read = stuck
        try:
            out = m.run()
        finally:
            release.set()
        assert not out.passed and out.state is VState.ESCALATE
        assert out.details == "reading the spec took longer than 20 ms"
        assert seen.count((VState.READ_STATE, VState.TIMEOUT)) == 2
        assert (VState.TIMEOUT, VState.RETRY) in seen
        assert sleeps == [0.1]

    def test_without_a_transition_listener(self) -> None:
        out = VerificationMachine(Reads(Boxes(1, 1), Boxes(1, 0)), sleep=lambda s: None).run()
        assert out.passed and len(out.transitions) == 6


@pytest.mark.parametrize(
    ("text", "total", "open_"),
    [
        (DONE_SPEC, 3, 0),
        (OPEN_SPEC, 2, 1),
        ("# no boxes\n", 0, 0),
        ("- [ ] real\n````md\n- [ ] inside a fence\n```\n- [ ] still inside\n````\n", 1, 1),
        ("~~~\n- [ ] tilde fence\n```\n~~~\n- [x] after\n", 1, 0),
        ("  - [ ] nested\n    ```python\n    x = '- [ ] no'\n    ```\n", 1, 1),
        ("-[ ] no space\n- [] empty\n- [y] other mark\n", 0, 0),
    ],
)
def test_count_boxes_outside_fences(text: str, total: int, open_: int) -> None:
    assert count_boxes(text) == Boxes(total, open_)


def spec(root: Path, front: str, body: str = "# s\n- [x] done\n", name: str = "a.spec.md") -> str:
    path = root / "specs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}")
    return f"specs/{name}"


def test_strict_tier_compares_the_claim_with_the_disk(tmp_path: Path) -> None:
    transitions: list[tuple[VState, VState]] = []
    path = spec(tmp_path, "verification: strict\n", "# s\n- [x] one\n- [ ] two\n")
    gate = run_gate(path, tmp_path, on_transition=lambda a, b: transitions.append((a, b)))
    assert gate.reasons == (
        "checkboxes: status: claimed complete, on disk incomplete (1 of 2 boxes unticked)",
    )
    assert [b.value for _, b in transitions] == [
        "read_state",
        "mismatch",
        "retry",
        "read_state",
        "mismatch",
        "escalate",
    ]
    done = spec(tmp_path, "verification: strict\n", "# s\n- [x] one\n```\n- [ ] code\n```\n")
    assert run_gate(done, tmp_path).passed
    standard = spec(tmp_path, "verification: standard\n", "# s\n- [ ] open\n")
    assert run_gate(standard, tmp_path).passed
