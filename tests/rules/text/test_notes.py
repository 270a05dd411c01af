"""rules/text/notes.py: the agent's notes (a handoff, the guardrails, the question file) after a
lane's rotation."""

from __future__ import annotations

from ralph.rules.text.notes import merged_note

G = "# Guardrails\n- one\n"


def test_an_untouched_note_keeps_what_others_wrote() -> None:
    assert merged_note(G, G + "- other lane\n", G) == G + "- other lane\n"


def test_a_note_only_the_agent_changed_is_the_agents() -> None:
    assert merged_note(G, G, "rewritten\n") == "rewritten\n"
    assert merged_note("", "", "step 1 done\n") == "step 1 done\n"


def test_what_two_lanes_append_is_all_kept() -> None:
    after_a = merged_note(G, G, G + "- a\n")
    assert merged_note(G, after_a, G + "- b\n") == G + "- a\n- b\n"


def test_a_rewrite_keeps_what_others_appended_meanwhile() -> None:
    assert merged_note(G, G + "- a\n", "new\n") == "new\n- a\n"


def test_two_rewrites_lose_neither() -> None:
    assert merged_note(G, "theirs", "mine") == "theirs\nmine"
