"""Whose model an agent runs: its vendor, so a verifier or judge can be another vendor's.

Pure: a built-in CLI has a default vendor (Claude Code runs Anthropic's models); a model name
says more where a CLI runs several vendors' models (opencode, pi, aider: `anthropic/claude-…`,
`gpt-…`, `gemini-…`). None: not known (a custom command without a model).
"""

from __future__ import annotations

_BY_NAME: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("anthropic", ("anthropic", "claude", "opus", "sonnet", "haiku")),
    ("openai", ("openai", "gpt", "codex", "o1", "o3", "o4")),
    ("google", ("google", "gemini", "vertex")),
    ("mistral", ("mistral", "codestral", "devstral")),
    ("deepseek", ("deepseek",)),
    ("xai", ("xai", "grok")),
)


def vendor_of(model: str | None, default: str | None = None) -> str | None:
    """The vendor a model name belongs to (its `provider/` prefix or its family), else
    `default` (the CLI's own vendor)."""
    if model:
        name = model.strip().lower()
        head = name.split("/", 1)[0] if "/" in name else ""
        for vendor, words in _BY_NAME:
            if head in words or any(name.startswith(w) for w in words):
                return vendor
            if head and head == vendor:
                return vendor
    return default


def other_vendor_first(candidates: list[tuple[str, str | None]], vendor: str | None) -> list[str]:
    """Candidate names (name, vendor) in order of preference for judging work done with
    `vendor`'s model: another known vendor first, then unknown ones, then the same vendor."""

    def rank(item: tuple[str, str | None]) -> int:
        theirs = item[1]
        if vendor is None or theirs is None:
            return 1
        return 0 if theirs != vendor else 2

    return [name for name, _ in sorted(candidates, key=rank)]
