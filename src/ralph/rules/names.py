"""Finding what the user meant among known names: a part of a spec path, a misspelt key."""

from __future__ import annotations

from collections.abc import Iterable


def matching(query: str, names: Iterable[str]) -> list[str]:
    """The names `query` picks: the one equal to it, else every name containing it (case
    ignored), so `classify` finds `specs/classify.spec.md`."""
    known = list(dict.fromkeys(names))
    if query in known:
        return [query]
    needle = query.casefold()
    return [name for name in known if needle in name.casefold()]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest choice, or "" when none is close."""
    import difflib  # only on an error path

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
