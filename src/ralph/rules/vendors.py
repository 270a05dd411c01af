"""Who makes an agent's model (pure): a judge from another vendor than the coder is less
likely to share its blind spots, so the pool prefers one when it has one."""

from __future__ import annotations

from collections.abc import Sequence

# the CLI (its name or executable) and what it runs by default
_CLIS = {"claude": "anthropic", "codex": "openai", "gemini": "google", "cursor-agent": "cursor"}
# words a model name starts with (`anthropic/claude-sonnet-4`, `gpt-5`, `gemini-2.5-pro`)
_MODELS = (
    (("claude", "sonnet", "opus", "haiku", "anthropic"), "anthropic"),
    (("gpt", "o1", "o3", "o4", "codex", "openai"), "openai"),
    (("gemini", "google"), "google"),
    (("mistral", "codestral", "devstral"), "mistral"),
    (("deepseek",), "deepseek"),
    (("qwen",), "qwen"),
    (("grok", "xai"), "xai"),
)


def vendor(name: str, argv0: str = "", model: str | None = None) -> str | None:
    """The vendor of an agent's model: from its model when given, else from its CLI; None
    when it cannot be told."""
    if model:
        words = model.lower().replace("/", " ").replace(":", " ").split()
        for word in words:
            for prefixes, who in _MODELS:
                if word.startswith(prefixes):
                    return who
    for key in (name.lower(), argv0.rsplit("/", 1)[-1].lower()):
        if key in _CLIS:
            return _CLIS[key]
    return None


def prefer_other_vendor(
    names: Sequence[str], vendors: dict[str, str | None], coder: str | None
) -> list[str]:
    """`names` with the agents of another (known) vendor than the coder's first, then the
    unknown, then the coder's own; the order is kept within each group."""

    def rank(name: str) -> int:
        who = vendors.get(name)
        if coder is None or who is None:
            return 1
        return 0 if who != coder else 2

    return sorted(names, key=rank)
