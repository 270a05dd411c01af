"""The agent's notes (a handoff, the guardrails, the question file) after a lane's rotation.

A lane's agent works on a copy of the run's notes in its worktree; meanwhile other lanes, and
ralph's own notes, may add to the run's copy. What the lane's agent left joins the run's copy
as a three-way merge of text that mostly grows: what it appended is appended; what it rewrote
replaces what it was given, and what others added meanwhile stays after it.
"""

from __future__ import annotations


def merged_note(given: str, now: str, left: str) -> str:
    """The run's copy of a note once a lane's agent is done with it: `given` what the lane
    got, `now` the run's copy at this moment, `left` what the lane's agent left."""
    if left == given:
        return now  # the agent did not touch it: whatever others wrote stands
    if now == given:
        return left  # nobody else did: the agent's text, as in one-spec mode
    if left.startswith(given):  # the agent appended; others changed the run's copy too
        return _joined(now, left[len(given) :])
    if now.startswith(given):  # the agent rewrote it; others appended meanwhile
        return _joined(left, now[len(given) :])
    return _joined(now, left)  # both rewrote it: nothing is lost, the agent's words last


def _joined(first: str, then: str) -> str:
    if not first or not then or first.endswith("\n") or then.startswith("\n"):
        return first + then
    return f"{first}\n{then}"
