"""The files each built-in agent CLI makes in the project it works in: its scaffolding.

aider writes `.aider.chat.history.md`, `.aider.input.history` and `.aider.tags.cache.v4/` and,
on its first run in a git repository, adds `.aider*` to `.gitignore`; Claude Code keeps its
local settings in `.claude/`, Gemini CLI in `.gemini/`, Cursor's agent in `.cursor/`, OpenCode
in `.opencode/`, Codex in `.codex/`, pi in `.pi/`. An ignore rule that names only these waits
for no person, and what it ignores is never hidden source (store/snapshots/ignore.py). Each agent's
footprint (on its class, in its module) takes its entry from here: the store, which applies
them, sits below the agents and may not import them (tests/agents/test_footprint.py holds the
two equal).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

# agent -> names or globs (one path component) of what it makes at the project's top
AGENT_SCAFFOLDING: dict[str, tuple[str, ...]] = {
    "claude": (".claude",),
    "codex": (".codex",),
    "gemini": (".gemini",),
    "cursor": (".cursor",),
    "opencode": (".opencode",),
    "pi": (".pi",),
    "aider": (".aider*",),
}
AGENT_GLOBS = tuple(sorted({glob for globs in AGENT_SCAFFOLDING.values() for glob in globs}))


def agent_file(name: str) -> bool:
    """Is `name` (one path component, or an ignore pattern's) an agent's own: `.claude`,
    `.aider.chat.history.md`, or aider's own pattern `.aider*`?"""
    return any(fnmatchcase(name, glob) for glob in AGENT_GLOBS)
