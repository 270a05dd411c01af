"""rules/environment/links.py: where a link leads, its whole chain resolved within the tree."""

from __future__ import annotations

from ralph.rules.environment.links import MAX_FOLLOWED, resolved

CHAIN = {"lk/a": "../d1/d2", "d1/d2/up": "../..", "lk/e": "../lk/a/up/../.."}


def test_a_chain_of_links_each_inside_can_lead_out() -> None:
    assert resolved("lk/a", CHAIN) == "d1/d2"
    assert resolved("d1/d2/up", CHAIN) == ""  # the root itself: inside
    assert resolved("lk/e", CHAIN) is None  # `..` after `up` is taken from where it leads


def test_plain_links_inside_and_outside() -> None:
    links = {"a": "data/x.txt", "b/c": "../data/./x.txt", "up": "../secret", "abs": "/etc"}
    assert resolved("a", links) == "data/x.txt"
    assert resolved("b/c", links) == "data/x.txt"
    assert resolved("up", links) is None
    assert resolved("abs", links) is None
    assert resolved("win", {"win": "C:\\\\x"}) is None


def test_a_loop_leads_nowhere() -> None:
    assert resolved("a", {"a": "b", "b": "a"}) is None
    deep = {f"l{i}": f"l{i + 1}" for i in range(MAX_FOLLOWED + 2)}
    assert resolved("l0", deep) is None


def test_a_walk_through_a_foreign_folder_leaves() -> None:
    """A room's environment folders hold links out of it: `.venv/lib/../..` is not the root."""
    links = {"x": ".venv/lib/../../calc", "y": "calc/../.venv"}
    assert resolved("x", links) == "calc"
    assert resolved("x", links, frozenset({".venv"})) is None
    assert resolved("y", links, frozenset({".venv"})) is None
