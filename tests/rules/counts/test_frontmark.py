"""rules/counts/frontmark.py: front matter an agent wrote is remembered by its hash until a person
changes it; nothing read leaves the mark as it was."""

from __future__ import annotations

from ralph.rules.counts.frontmark import FrontSeen, next_mark


def test_front_matter_the_rotation_changed_is_marked_by_its_digest() -> None:
    assert next_mark(FrontSeen("abc", changed=True), None) == "abc"
    assert next_mark(FrontSeen("def", changed=True), "abc") == "def"  # the agent's newest


def test_the_mark_stays_while_the_agents_front_matter_is_on_disk() -> None:
    assert next_mark(FrontSeen("abc", changed=False), "abc") == "abc"


def test_a_person_changing_it_lifts_the_mark() -> None:
    assert next_mark(FrontSeen("person", changed=False), "abc") is None


def test_unread_or_unmarked_front_matter_changes_nothing() -> None:
    # the controls: nothing read keeps the mark; no mark and no change makes none
    assert next_mark(None, "abc") == "abc"
    assert next_mark(None, None) is None
    assert next_mark(FrontSeen("abc", changed=False), None) is None
