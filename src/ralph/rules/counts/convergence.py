"""The convergence watch, pure: a spec whose REVIEW rotations keep changing files is not getting
closer to verified (an agent that keeps progress notes inside the repository changes a file
every rotation, so focused execution would keep ralph on that spec until the iteration cap).

A spec's streak is the files each of its REVIEW rotations changed, in a row: a REVIEW that
changed files adds to it (an IMPLEMENT rotation between them neither adds nor breaks it, it is
how the counter climbs back), and any rotation of the spec that changed nothing ends it. After
`patience` REVIEW rotations in the streak ralph names the files that keep changing and asks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

DEFAULT_PATIENCE = 4
Streak = tuple[tuple[str, ...], ...]  # per REVIEW rotation in a row: the files it changed
SHOWN = 5  # files named in the message

# Files that look like an agent's notes or logs rather than the work: progress.md, NOTES.txt,
# todo.md, agent.log, scratch/..., an agent's own folder (.claude/, .aider.chat.history.md).
_NOTES = re.compile(
    r"(?:^|/)(?:progress|notes?|todo|journal|scratch|memory|worklog|changelog[-_]draft|status)"
    r"(?:[-_.]\w+)*\.(?:md|txt|log|json|jsonl|org|rst|ya?ml)$"
    r"|\.log$|(?:^|/)(?:notes|logs|scratch)/"
    r"|(?:^|/)\.(?:claude|codex|gemini|aider|cursor|opencode|pi)\b",
    re.IGNORECASE,
)


def watch(
    streaks: Mapping[str, Streak], spec: str, mode: str, paths: Sequence[str]
) -> dict[str, Streak]:
    """The streaks after a rotation of `spec` in `mode` that changed `paths`."""
    out = dict(streaks)
    if not paths:
        out.pop(spec, None)
    elif mode == "REVIEW":
        out[spec] = (*out.get(spec, ()), tuple(sorted(paths)))
    return out


def stuck(streak: Streak, patience: int) -> bool:
    return len(streak) >= patience


def repeating(streak: Streak) -> list[str]:
    """The files that keep changing: those changed in every REVIEW of the streak, else those
    changed most often (at least twice), most frequent first."""
    if not streak:
        return []
    counts = Counter(path for paths in streak for path in set(paths))
    every = sorted(p for p, n in counts.items() if n == len(streak))
    if every:
        return every
    return [p for p, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= 2]


def looks_like_notes(path: str) -> bool:
    return _NOTES.search(path) is not None


def reasons(streak: Streak) -> tuple[str, ...]:
    """What ralph tells the user: which files keep changing, and a `.ralphignore` hint when
    they look like notes or logs."""
    files = repeating(streak)
    shown = ", ".join(files[:SHOWN]) + (
        f" and {len(files) - SHOWN} more" if len(files) > SHOWN else ""
    )
    out = [
        f"{len(streak)} REVIEW rotations in a row changed files"
        + (
            f"; changed every time or most often: {shown}"
            if files
            else "; different files each time"
        )
    ]
    notes = [p for p in files if looks_like_notes(p)]
    if notes:
        out.append(
            f"{', '.join(notes[:SHOWN])} look like the agent's notes or logs: list them in "
            ".ralphignore (or have the agent keep them outside the repository) so they stop "
            "counting as changes"
        )
    return tuple(out)
