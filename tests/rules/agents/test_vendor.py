"""rules/agents/vendor.py: whose model an agent runs."""

from __future__ import annotations

import pytest

from ralph.rules.agents.vendor import other_vendor_first, vendor_of


@pytest.mark.parametrize(
    ("model", "default", "vendor"),
    [
        ("claude-opus-4-8", None, "anthropic"),
        ("anthropic/claude-sonnet-4-5", None, "anthropic"),
        ("haiku", None, "anthropic"),
        ("gpt-5-codex", None, "openai"),
        ("openai/gpt-4.1", "anthropic", "openai"),
        ("gemini-2.5-pro", None, "google"),
        ("mistral/devstral", None, "mistral"),
        ("my-local-model", "openai", "openai"),
        (None, "google", "google"),
        (None, None, None),
    ],
)
def test_the_vendor_comes_from_the_model_name_else_the_clis_own(
    model: str | None, default: str | None, vendor: str | None
) -> None:
    assert vendor_of(model, default) == vendor


def test_another_vendor_is_preferred_then_unknown_then_the_same() -> None:
    candidates = [("same", "anthropic"), ("unknown", None), ("other", "openai")]
    assert other_vendor_first(candidates, "anthropic") == ["other", "unknown", "same"]
    # the coder's vendor unknown: the pool's order stands
    assert other_vendor_first(candidates, None) == ["same", "unknown", "other"]
