"""agents/footprint.py: what each agent CLI touches outside the project: hosts, login folders
(where its variables move them), and where ralph finds its credentials without calling it."""

from __future__ import annotations

from pathlib import Path

from ralph.agents.claude import ClaudeAgent
from ralph.agents.codex import CodexAgent
from ralph.agents.footprint import Footprint, config_paths, credentials, endpoint_hosts
from ralph.agents.registry import clis
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

assert ClaudeAgent.footprint is not None and CodexAgent.footprint is not None
CLAUDE, CODEX = ClaudeAgent.footprint, CodexAgent.footprint
# every one of ralph's own CLIs, as its plugin registers it: the footprint its module states
FOOTPRINTS: dict[str, Footprint | None] = {key: agent.footprint for key, agent in clis().items()}


def test_every_built_in_agent_states_its_footprint_and_its_scaffolding() -> None:
    assert AGENT_SCAFFOLDING.keys() == FOOTPRINTS.keys()
    for name, footprint in FOOTPRINTS.items():
        assert footprint is not None, name
        assert footprint.scaffolding == AGENT_SCAFFOLDING[name] != ()


def test_another_endpoint_is_allowed_by_host_and_port() -> None:
    env = {"ANTHROPIC_BASE_URL": "https://gateway.example:8443/v1"}
    assert endpoint_hosts(CLAUDE, env) == ("gateway.example:8443",)
    assert endpoint_hosts(CLAUDE, {"ANTHROPIC_BASE_URL": "http://127.0.0.1/v1"}) == (
        "127.0.0.1:80",
    )
    assert endpoint_hosts(CLAUDE, {"ANTHROPIC_BASE_URL": "https://x.example"}) == ("x.example:443",)
    assert endpoint_hosts(CLAUDE, {"ANTHROPIC_BASE_URL": "not a url"}) == ()
    assert endpoint_hosts(CLAUDE, {}) == ()


def test_the_login_folders_follow_the_clis_variables(tmp_path: Path) -> None:
    home = tmp_path / "home"
    moved = tmp_path / "elsewhere"
    paths = config_paths(CLAUDE, home, {"CLAUDE_CONFIG_DIR": str(moved)})
    assert home / ".claude" in paths and home / ".claude.json" in paths and moved in paths
    assert moved not in config_paths(CLAUDE, home, {"CLAUDE_CONFIG_DIR": ""})


def test_credentials_are_found_by_a_key_or_a_readable_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert credentials(CODEX, home, {}) is None
    assert credentials(CODEX, home, {"OPENAI_API_KEY": "sk-x"}) == "OPENAI_API_KEY"
    assert credentials(CODEX, home, {"OPENAI_API_KEY": ""}) is None  # set but empty
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "auth.json").write_text("{}")
    assert credentials(CODEX, home, {}) == str(home / ".codex" / "auth.json")


def test_a_moved_config_folder_holds_the_credentials_file(tmp_path: Path) -> None:
    moved = tmp_path / "codex-home"
    moved.mkdir()
    (moved / "auth.json").write_text("{}")
    assert credentials(CODEX, tmp_path / "home", {"CODEX_HOME": str(moved)}) == str(
        moved / "auth.json"
    )


def test_every_cli_says_how_to_log_in_and_passes_only_its_own_variables() -> None:
    for name, footprint in FOOTPRINTS.items():
        assert footprint is not None and footprint.login_hint and footprint.hosts, name
        assert all(not v.startswith("RALPH_") for v in footprint.variables), name
