"""The agent pool through the real CLI: several agents, rotation policies, fresh eyes,
per-agent limits (hangs), eviction after repeated failures, and the agent named everywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAKES, SCRIPTED_AGENT, Project

Steps = dict[str, list[dict[str, Any]]]
DONE: list[dict[str, Any]] = [{"signal": "DONE"}]
CONTINUE: list[dict[str, Any]] = [{"signal": "CONTINUE"}]


def agent(project: Project, name: str, steps: Steps) -> list[str]:
    """A scripted agent of its own (own script, own call log); its command as a list."""
    path = project.root.parent / f"{name}-script.json"
    path.write_text(json.dumps(steps))
    return [sys.executable, str(SCRIPTED_AGENT), str(path)]


def calls(project: Project, name: str) -> list[dict[str, Any]]:
    """The agent's spec rotations (a final verification's call is left out)."""
    path = project.root.parent / f"{name}-script.json.calls.jsonl"
    found = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [c for c in found if c["mode"] != "VERIFY"]


def pool_yaml(project: Project, agents: list[dict[str, Any]], **extra: Any) -> None:
    project.write({"ralph.yaml": json.dumps({"agents": agents, **extra})})  # JSON is YAML


def worklog(project: Project, event: str) -> list[dict[str, Any]]:
    lines = (project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("event") == event]


def used(project: Project) -> list[str]:
    return [e["agent"] for e in project.rotation_ends()]


def two_agents(project: Project, **extra: Any) -> None:
    pool_yaml(
        project,
        [
            {"name": "alpha", "command": agent(project, "alpha", {"*": DONE})},
            {"name": "beta", "command": agent(project, "beta", {"*": DONE})},
        ],
        **extra,
    )


def test_round_robin_alternates_and_every_record_names_the_agent_used(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    two_agents(git_project)
    res = git_project.run("run", "--plain")
    assert res.exit_code == 0, res
    assert used(git_project) == ["alpha", "beta", "alpha"]
    assert [e["agent"] for e in worklog(git_project, "rotation_start")] == used(git_project)
    assert worklog(git_project, "run_start")[0]["agents"] == ["alpha", "beta"]
    # each history log's header names its agent
    logs = sorted((git_project.root / ".ralph" / "history").rglob("*.log"))
    heads = [p.read_text().splitlines()[0] for p in logs if p.parent.name != "final-verification"]
    assert [h.split("agent=")[1].split()[0] for h in heads] == ["alpha", "beta", "alpha"]
    # run.json, as each agent saw it while it ran, names that agent
    assert [c["run_json"]["agent"] for c in calls(git_project, "alpha")] == ["alpha", "alpha"]
    assert [c["run_json"]["agent"] for c in calls(git_project, "beta")] == ["beta"]
    # the plain display names it on each rotation line
    assert "PROMPT.md (alpha)" in res.stdout and "PROMPT.md (beta)" in res.stdout
    # per-agent rotation counts in the state
    agents = git_project.state()["agents"]
    # beta also ran the final verification (fresh eyes: alpha completed the spec)
    assert {k: v["rotations"] for k, v in agents.items()} == {"alpha": 2, "beta": 2}
    # custom commands report no usage: counted, but `ralph status` has nothing to show for it
    assert git_project.state()["usage"]["unpriced"] == 4  # with the verification
    assert "usage:" not in git_project.run_subprocess("status").stdout


@pytest.mark.parametrize("how", ["flag", "yaml"])
def test_fallback_keeps_to_the_first_agent(git_project: Project, how: str) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    if how == "yaml":
        two_agents(git_project, pool={"rotation": "fallback"})
        res = git_project.run("run")
    else:
        two_agents(git_project)
        res = git_project.run("run", "--rotation", "fallback")
    assert res.exit_code == 0, res
    assert used(git_project) == ["alpha", "alpha", "alpha"]
    assert calls(git_project, "beta") == []


def test_review_goes_to_another_agent_than_the_one_that_changed_files(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    pool_yaml(
        git_project,
        [
            {
                "name": "alpha",
                "command": agent(
                    git_project, "alpha", {"*": [{"write": {"a.txt": "work"}, "signal": "DONE"}]}
                ),
            },
            {"name": "beta", "command": agent(git_project, "beta", {"*": DONE})},
        ],
        pool={"rotation": "fallback"},  # without fresh eyes, alpha would take every rotation
    )
    res = git_project.run("run")
    assert res.exit_code == 0, res
    assert used(git_project) == ["alpha", "beta", "beta"]
    assert [c["mode"] for c in calls(git_project, "beta")] == ["REVIEW", "REVIEW"]
    row = git_project.state()["specs"][0]
    assert row["last_changed_by"] == "alpha"


def test_fresh_eyes_can_be_turned_off(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    pool_yaml(
        git_project,
        [
            {
                "name": "alpha",
                "command": agent(
                    git_project,
                    "alpha",
                    {"*": [{"write": {"a.txt": "work"}, "signal": "DONE"}, *DONE]},
                ),
            },
            {"name": "beta", "command": agent(git_project, "beta", {"*": DONE})},
        ],
        pool={"rotation": "fallback", "fresh_eyes": False},
    )
    res = git_project.run("run")
    assert res.exit_code == 0, res
    assert used(git_project) == ["alpha", "alpha", "alpha"]


def test_a_reviewer_that_changes_files_is_not_the_next_reviewer(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    writes: Steps = {"*": [{"write": {"a.txt": "1"}, "signal": "DONE"}, *DONE]}
    fixes: Steps = {"*": [{"write": {"b.txt": "fix"}, "signal": "DONE"}, *DONE]}
    pool_yaml(
        git_project,
        [
            {"name": "alpha", "command": agent(git_project, "alpha", writes)},
            {"name": "beta", "command": agent(git_project, "beta", fixes)},
        ],
        pool={"rotation": "fallback"},
    )
    res = git_project.run("run")
    assert res.exit_code == 0, res
    # alpha implements; beta reviews and fixes (1/3 again); alpha reviews beta's fix twice
    assert used(git_project) == ["alpha", "beta", "alpha", "alpha"]


def test_repeated_flags_form_a_pool(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    one = " ".join(agent(git_project, "one", {"*": DONE}))
    two = " ".join(agent(git_project, "two", {"*": DONE}))
    res = git_project.run("run", "--agent-command", one, "--agent-command", two)
    assert res.exit_code == 0, res
    name = SCRIPTED_AGENT.stem
    assert used(git_project) == [name, f"{name}#2", name]  # same executable: made unique
    assert len(calls(git_project, "one")) == 2 and len(calls(git_project, "two")) == 1


def test_agent_and_agent_command_together_form_a_pool(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    custom = " ".join(agent(git_project, "custom", {"*": DONE}))
    res = git_project.run("run", "--agent-command", custom, "--agent", "demo", "-n", "2")
    assert res.exit_code == 3, res
    assert used(git_project) == ["demo", SCRIPTED_AGENT.stem]  # built-in agents first


def test_an_unknown_agent_name_names_the_custom_commands_in_order(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    one = " ".join(agent(git_project, "one", {"*": DONE}))
    two = " ".join(agent(git_project, "two", {"*": DONE}))
    res = git_project.run(
        "run", "--agent", "fast", "--agent-command", one, "--agent", "slow", "--agent-command", two
    )
    assert res.exit_code == 0, res
    assert used(git_project) == ["fast", "slow", "fast"]
    assert len(calls(git_project, "one")) == 2


def test_agent_flag_picks_a_named_agent_of_ralph_yaml(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    two_agents(git_project)
    res = git_project.run("run", "--agent", "beta")
    assert res.exit_code == 0, res
    assert used(git_project) == ["beta"] * 3


def test_the_single_agent_key_still_works(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    git_project.write(
        {
            "ralph.yaml": json.dumps(
                {"agent": {"name": "solo", "command": agent(git_project, "s", {})}}
            )
        }
    )
    res = git_project.run("run")
    assert res.exit_code == 0, res
    assert used(git_project) == ["solo"] * 3


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"agent": "demo", "agents": ["demo"]},
            "give either agent: (one agent) or agents: (a pool), not both",
        ),
        ({"agents": []}, "agents: Value error, list at least one agent"),
        ({"agents": [{"timeout": 5}]}, "each agent needs a name"),
        ({"agents": ["demo"], "pool": {"rotation": "random"}}, "pool.rotation"),
        ({"agents": ["demo"], "pool": {"max_failures": 0}}, "pool.max_failures"),
        ({"agents": ["demo"], "max_cost": -1}, "max_cost"),
        ({"agents": ["demo"], "max_tokens": 0}, "max_tokens"),
        ({"agents": ["demo", "nonsense"]}, "unknown agent: nonsense"),
    ],
)
def test_bad_pool_configuration_is_one_line(
    project: Project, config: dict[str, Any], message: str
) -> None:
    project.write({"PROMPT.md": "goal\n", "ralph.yaml": json.dumps(config)})
    res = project.run("run")
    assert res.exit_code == 1, res
    assert message in res.stderr
    assert "Traceback" not in res.stderr
    assert not (project.root / ".ralph" / "worklog.jsonl").exists()  # nothing ran


def test_unknown_rotation_flag_is_a_usage_error(project: Project) -> None:
    project.write({"PROMPT.md": "goal\n"})
    res = project.run("run", "--agent", "demo", "--rotation", "random")
    assert res.exit_code == 2, res
    assert "--rotation: 'random' is not one of" in res.stderr
    assert "'round-robin', 'fallback'" in res.stderr


def test_each_agent_has_its_own_idle_timeout(git_project: Project, tmp_path: Path) -> None:
    """A hang: the pool member's own idle timeout stops it (whole tree), the next agent works.
    The other agent is as quiet for longer than that, and is not stopped: limits are per agent."""
    git_project.write({"PROMPT.md": "goal\n"})
    pid_file = tmp_path / "hung.pid"
    pool_yaml(
        git_project,
        [
            {
                "name": "hangs",
                "command": [sys.executable, str(FAKES / "silent.py"), str(pid_file)],
                # room for the program's own start on a loaded machine: it writes its pid first
                "idle_timeout": 3,
                "kill_grace": 1,
            },
            {
                "name": "slow",
                "command": agent(git_project, "slow", {"*": [{"sleep": 4.5, "signal": "DONE"}]}),
            },
        ],
        pool={"max_failures": 5},
    )
    res = git_project.run("run", "-n", "2")
    assert res.exit_code == 3, res
    ends = git_project.rotation_ends()
    assert [(e["agent"], e["signal"]) for e in ends] == [("hangs", "ERROR"), ("slow", "DONE")]
    assert "idle timeout" in ends[0]["note"]
    pid = int(pid_file.read_text())
    assert not _alive(pid)


def test_a_hang_past_the_wall_clock_timeout_is_a_failed_rotation(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    pid_file = tmp_path / "ticker.pid"
    pool_yaml(
        git_project,
        [
            {
                "name": "stuck",
                "command": [sys.executable, str(FAKES / "silent.py"), str(pid_file), "hello"],
                "timeout": 3,  # room for its start on a loaded machine (it sleeps 30 s)
                "kill_grace": 1,
            },
            {"name": "ok", "command": agent(git_project, "ok", {"*": DONE})},
        ],
    )
    res = git_project.run("run", "-n", "2")
    assert res.exit_code == 3, res
    ends = git_project.rotation_ends()
    assert [(e["agent"], e["signal"]) for e in ends] == [("stuck", "ERROR"), ("ok", "DONE")]
    assert "timed out" in ends[0]["note"]
    assert not _alive(int(pid_file.read_text()))


def test_an_agent_failing_n_times_in_a_row_leaves_the_pool(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    pool_yaml(
        git_project,
        [
            {"name": "broken", "command": agent(git_project, "broken", {"*": [{"exit": 1}]})},
            {
                "name": "good",
                "command": agent(git_project, "good", {"*": [{"signal": "CONTINUE"}]}),
            },
        ],
        pool={"max_failures": 2},
    )
    res = git_project.run("run", "--plain", "-n", "6")
    assert res.exit_code == 3, res
    assert used(git_project) == ["broken", "good", "broken", "good", "good", "good"]
    assert "broken leaves the pool after 2 failed rotations in a row" in res.stdout
    handoff = next((git_project.root / ".ralph" / "handoffs").glob("*.md")).read_text()
    assert "failed (exit code 1)" in handoff  # the failed rotation is still noted


def test_a_success_in_between_clears_the_failure_count(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    flaky: list[dict[str, Any]] = [
        {"exit": 1},
        {"signal": "CONTINUE"},
        {"exit": 1},
        {"signal": "CONTINUE"},
    ]
    pool_yaml(
        git_project,
        [{"name": "flaky", "command": agent(git_project, "flaky", {"*": flaky * 3})}],
        pool={"max_failures": 2},
    )
    res = git_project.run("run", "-n", "8")
    assert res.exit_code == 3, res  # never two failures in a row: never evicted
    assert len(git_project.rotation_ends()) == 8


def test_every_agent_evicted_stops_the_run_with_exit_1(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    pool_yaml(
        git_project,
        [
            {"name": "a", "command": agent(git_project, "a", {"*": [{"exit": 1}]})},
            {"name": "b", "command": agent(git_project, "b", {"*": [{"exit": 2}]})},
        ],
        pool={"max_failures": 2},
        breaker={"threshold": 10},  # the circuit breaker would stop it first (3 in a row)
    )
    res = git_project.run("run", "-n", "20")
    assert res.exit_code == 1, res
    assert used(git_project) == ["a", "b", "a", "b"]  # then nothing: never loops on them
    assert "error: every agent failed 2 rotations in a row" in res.stderr
    assert "a: exit code 1" in res.stderr and "b: exit code 2" in res.stderr
    assert "hint: " in res.stderr
    assert worklog(git_project, "run_end")[-1]["exit_code"] == 1
    assert git_project.state()["specs"][0]["last_status"] == "ERROR"


def test_a_single_failing_agent_is_evicted_after_the_default_three(git_project: Project) -> None:
    # the circuit breaker (also 3 in a row by default) would ask a human first: raised here
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "breaker: {threshold: 10}\n"})
    cmd = git_project.script({"*": [{"exit": 1}]})
    res = git_project.run("run", "--agent-command", cmd, "-n", "20")
    assert res.exit_code == 1, res
    assert len(git_project.rotation_ends()) == 3


def test_an_agent_failing_three_times_is_evicted_and_the_run_ends_as_an_error(
    git_project: Project,
) -> None:
    """Both stop a single agent that fails 3 times in a row: with no agent left there is no
    one to go on with, so the run ends as the error it is (exit 1), not as a question to a
    human (Accept or Continue could not help); the breaker stays open for the next run."""
    git_project.write({"PROMPT.md": "goal\n"})
    cmd = git_project.script({"*": [{"exit": 1}]})
    res = git_project.run("run", "--agent-command", cmd, "-n", "20")
    assert res.exit_code == 1, res
    assert len(git_project.rotation_ends()) == 3
    assert "circuit breaker open" in res.stdout
    assert "error: every agent failed 3 rotations in a row" in res.stderr
    assert not git_project.worklog("escalation")
    assert git_project.state()["breaker"]["state"] == "OPEN"


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_semantic_checks_judge_is_another_agent_of_the_pool(git_project: Project) -> None:
    git_project.write(
        {
            "PROMPT.md": "---\nacceptance_criteria: [greets the user]\nchecks:\n"
            "  - method: semantic\n    config: {check_for: '{{acceptance_criteria}}'}\n---\n"
            "# goal\n"
        }
    )
    two_agents(git_project, pool={"rotation": "fallback"})
    res = git_project.run("run", "-n", "1")
    assert res.exit_code == 3, res
    assert used(git_project) == ["alpha"]

    def judged(name: str) -> int:
        path = git_project.root.parent / f"{name}-script.json.calls.jsonl.judge"
        return len(path.read_text().splitlines()) if path.exists() else 0

    assert (judged("alpha"), judged("beta")) == (0, 1)  # alpha's DONE, judged by beta
