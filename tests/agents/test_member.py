"""agents/member.py: a member of the pool is one agent with its own limits, named for it."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member


def test_a_member_goes_by_its_agents_name_with_limits_of_its_own() -> None:
    member = Member(CommandAgent("reviewer", ["agent"]), timeout=60.0)
    assert member.name == "reviewer"
    assert (member.timeout, member.idle_timeout, member.kill_grace) == (60.0, None, 5.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        member.timeout = 1.0  # type: ignore[misc]
