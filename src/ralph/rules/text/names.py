"""Finding what the user meant among known names: a part of a spec path, a misspelt key."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


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


# Programs that run another one named after them: the agent is the script, not the runner.
_RUNNERS = re.compile(
    r"(?:python|pypy|node|deno|bun|ruby|perl|php|bash|sh|zsh|dash|fish|env|uv|uvx|npx|pnpx"
    r"|poetry|pipx|exec|nice|time|timeout|nohup)[\d.]*(?:\.exe)?",
    re.IGNORECASE,
)
_SUBCOMMANDS = frozenset({"run", "exec", "x", "tool"})  # `uv run x.py`, `poetry run agent`


def command_label(argv: Sequence[str]) -> str:
    """The name a custom agent goes by in the panel, the history and the usage: its script
    (`python3 agents/review.py` -> `review`, `sh -c 'my-agent --fast'` -> `my-agent`), or the
    program itself when it is not a runner of another one."""
    words = list(argv)
    i = 0
    while i < len(words) and _RUNNERS.fullmatch(_base(words[i])):
        i += 1
        while i < len(words):
            word = words[i]
            if word == "-m" and i + 1 < len(words):  # `python -m pkg.agent`
                return words[i + 1].rsplit(".", 1)[-1] or "custom"
            if word in ("-c", "-e", "--eval") and i + 1 < len(words):
                return _script_label(words[i + 1]) or _stem(words[i - 1])
            if word.startswith("-") or "=" in word or word in _SUBCOMMANDS or word.isdigit():
                i += 1  # the runner's own flags, `env A=1`, `uv run`, `timeout 60`
                continue
            break
    if i >= len(words):
        return _stem(words[-1]) if words else "custom"
    return _stem(words[i])


# A shell script's plumbing: `sh -c 'cat > /dev/null; echo "<ralph>DONE</ralph>"'` is not an
# agent called `echo` or `cat`.
_PLUMBING = frozenset((
    "echo", "printf", "cat", "cd", "set", "export", "unset", "read", "true", "false", ":",
    "test", "[", "sleep", "exit", "return", "trap", "wait", "if", "then", "else", "elif", "fi",
    "for", "while", "until", "do", "done", "case", "esac", "tee", "head", "tail", "grep", "sed",
    "awk", "tr", "cut", "wc", "sort", "uniq", "xargs", "mkdir", "rm", "cp", "mv", "touch", "ls",
    "date", "source", ".", "eval",
))  # fmt: skip


def _script_label(script: str) -> str | None:
    """The program a shell script runs that names it: the first command of the script that is
    not the shell's own plumbing (None when every command is)."""
    for command in re.split(r"[;&|\n()]+", script):
        words = [w.strip("'\"") for w in command.split()]
        words = [w for w in words if w and not re.fullmatch(r"[A-Za-z_]\w*=.*", w)]
        if words and not _PLUMBING.issuperset(words[:1]) and not words[0].startswith((">", "<")):
            return command_label(words)
    return None


def _base(word: str) -> str:
    return word.replace("\\", "/").rsplit("/", 1)[-1]


def _stem(word: str) -> str:
    base = _base(word)
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    return stem or base or "custom"
