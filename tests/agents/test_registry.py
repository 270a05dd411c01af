"""agents/registry.py: the registry of agents `--agent NAME` accepts, and `make_agent`, which
makes the one a run uses."""

from __future__ import annotations

from ralph.agents.registry import REGISTRY, make_agent


def test_models_per_mode_fall_back_to_model() -> None:
    agent = make_agent("claude", None, {}, "sonnet")
    agent.models = {"review": "haiku", "verify": "opus"}
    assert [agent.model_for(m) for m in ("IMPLEMENT", "REVIEW", "VERIFY", "JUDGE")] == [
        "sonnet",
        "haiku",
        "opus",
        "sonnet",
    ]
    assert agent.for_mode("IMPLEMENT") is agent  # nothing to change: the same agent
    assert agent.for_mode("REVIEW").model == "haiku" and agent.model == "sonnet"


def test_every_registered_name_makes_its_agent() -> None:
    for name, agent in REGISTRY.items():
        assert agent.key == name
        assert make_agent(name, None, {}).name == name
