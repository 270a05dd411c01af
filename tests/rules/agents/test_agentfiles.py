"""rules/agents/agentfiles.py: the files each built-in agent CLI makes in the project it works
in."""

from __future__ import annotations

from ralph.rules.agents.agentfiles import agent_file
from ralph.store.snapshots.ignore import is_scaffolding


def test_the_agent_files_are_scaffolding_at_the_top_of_the_project() -> None:
    for path in (".aider.chat.history.md", ".aider.tags.cache.v4/", ".aider.tags.cache.v4/x.db"):
        assert is_scaffolding(path)
    assert is_scaffolding(".claude/settings.local.json") and agent_file(".gemini")
    assert not is_scaffolding("src/.aider.py") and not is_scaffolding("aider.py")
