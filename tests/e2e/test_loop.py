"""The loop end to end through the real CLI, with the scripted agent (mostly in-process).

These cover the seeds' rules as a user sees them: the counter on real file changes, focused
execution, re-scans (new, removed, modified specs), restarts, and what is handed to the agent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project

TWO_SPECS = {"PROMPT.md": "# goal\n- [ ] main\n", "specs/api.spec.md": "# api\n- [ ] api\n"}


def order(project: Project) -> list[tuple[str, str]]:
    return [(c["spec"], c["mode"]) for c in project.calls()]


def test_single_prompt_reaches_three_of_three(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    cmd = git_project.fake(
        {"PROMPT.md": [{"write": {"app.py": "print(1)\n"}, "signal": "DONE"}, {"signal": "DONE"}]}
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert git_project.counts() == {"PROMPT.md": 3}
    assert order(git_project) == [
        ("PROMPT.md", "IMPLEMENT"),
        ("PROMPT.md", "REVIEW"),
        ("PROMPT.md", "REVIEW"),
    ]
    assert "every spec verified" in res.stdout


def test_counter_follows_real_file_changes(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            "PROMPT.md": [
                {"signal": "ROTATE"},  # 0/3 unchanged
                {"write": {"a.txt": "1"}, "signal": "CONTINUE"},  # changed, non-DONE: 0/3
                {"write": {"a.txt": "2"}, "signal": "DONE"},  # 1/3
                {"write": {"a.txt": "3"}, "signal": "DONE"},  # found an issue: 1/3 again
                {"signal": "DONE"},  # 2/3
                {"signal": "ROTATE"},  # 2/3 unchanged
                {"signal": "DONE"},  # 3/3
            ]
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    ends = git_project.rotation_ends()
    assert [e["done_count"] for e in ends] == [0, 0, 1, 1, 2, 2, 3]
    assert [e["files_changed"] for e in ends] == [0, 1, 1, 1, 0, 0, 0]


def test_focused_execution_and_switch_order(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake(
        {
            "PROMPT.md": [
                {"write": {"main.py": "1"}, "signal": "CONTINUE"},
                {"write": {"main.py": "2"}, "signal": "DONE"},
                {"signal": "DONE"},
            ],
            "specs/api.spec.md": [{"write": {"api.py": "1"}, "signal": "DONE"}, {"signal": "DONE"}],
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert order(git_project) == [
        ("PROMPT.md", "IMPLEMENT"),  # CONTINUE: stay
        ("PROMPT.md", "IMPLEMENT"),  # DONE with changes: 1/3, stay
        ("PROMPT.md", "REVIEW"),  # DONE, no changes: 2/3, switch
        ("specs/api.spec.md", "IMPLEMENT"),  # 1/3 (changed files: PROMPT stays 2/3)
        ("specs/api.spec.md", "REVIEW"),  # 2/3, switch
        ("PROMPT.md", "REVIEW"),  # tier 4, alphabetical: 3/3
        ("specs/api.spec.md", "REVIEW"),  # the only one left: 3/3
    ]
    assert git_project.counts() == {"PROMPT.md": 3, "specs/api.spec.md": 3}


# PROMPT.md reaches 3/3 first; then the api spec's third rotation changes a file
DROP_SCRIPT: dict[str, list[dict[str, Any]]] = {
    "PROMPT.md": [{"signal": "DONE"}],
    "specs/api.spec.md": [
        {"signal": "DONE"},
        {"signal": "DONE"},
        {"write": {"api.py": "fix"}, "signal": "DONE"},
        {"signal": "DONE"},
    ],
}


@pytest.mark.parametrize("in_git", [True, False], ids=["git", "no-git"])
def test_change_by_one_spec_drops_others_from_three_to_two(project: Project, in_git: bool) -> None:
    if in_git:
        project.git("init", "-q")
    project.write(TWO_SPECS)
    res = project.run("run", "--agent-command", project.script(DROP_SCRIPT))
    assert res.exit_code == 0, res
    dropping = [e for e in project.rotation_ends() if e["downgraded"]]
    assert len(dropping) == 1
    assert dropping[0]["spec"] == "specs/api.spec.md"
    assert dropping[0]["downgraded"] == ["PROMPT.md"]
    assert "3/3→2/3" in res.stdout
    assert project.counts() == {"PROMPT.md": 3, "specs/api.spec.md": 3}


def test_new_spec_discovered_mid_run_interrupts_current_work(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    cmd = git_project.fake(
        {
            "PROMPT.md": [
                {"write": {"specs/late.spec.md": "# added by the agent\n"}, "signal": "CONTINUE"},
                {"signal": "DONE"},
            ],
            "specs/late.spec.md": [{"signal": "DONE"}],
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert order(git_project)[:2] == [
        ("PROMPT.md", "IMPLEMENT"),
        ("specs/late.spec.md", "IMPLEMENT"),
    ]
    assert "new spec: specs/late.spec.md" in res.stdout


def test_removed_spec_is_dropped_from_the_matrix(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake(
        {
            "PROMPT.md": [{"delete": ["specs/api.spec.md"], "signal": "DONE"}, {"signal": "DONE"}],
            "specs/api.spec.md": [{"signal": "DONE"}],
        }
    )
    res = git_project.run("run", *cmd, "-n", "2")
    assert git_project.counts() == {"PROMPT.md": 0}  # dropped from the matrix at once
    assert all(c["spec"] == "PROMPT.md" for c in git_project.calls())
    # the agent removed it, not a person: the run is not verified with fewer specs until a
    # person accepts the removal (tests/e2e/test_spec_set.py)
    assert res.exit_code == 3, res
    assert "specs/api.spec.md was removed or renamed during a run" in res.stdout
    assert git_project.run("accept", "--yes").exit_code == 0
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert git_project.counts() == {"PROMPT.md": 3}


def test_agent_deleting_its_own_spec_does_not_crash(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake(
        {
            "specs/api.spec.md": [{"delete": ["specs/api.spec.md"], "signal": "DONE"}],
            "PROMPT.md": [{"signal": "DONE"}],
        }
    )
    git_project.write(
        {
            ".ralph/state.json": json.dumps(
                {
                    "schema_version": 1,
                    "iteration": 0,
                    "specs": [
                        {
                            "path": "PROMPT.md",
                            "done_count": 2,
                            "last_status": "DONE",
                            "last_hash": "x",
                        }
                    ],
                }
            )
        }
    )
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res  # held for a person (tests/e2e/test_spec_set.py), no crash
    assert list(git_project.counts()) == ["PROMPT.md"]
    assert git_project.run("accept", "--yes").exit_code == 0
    assert git_project.run("run", *cmd).exit_code == 0


def test_modified_spec_goes_back_to_zero_and_is_reprocessed(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    assert git_project.counts() == {"PROMPT.md": 3, "specs/api.spec.md": 3}
    git_project.write({"specs/api.spec.md": "# api\n- [ ] api\n- [ ] a new requirement\n"})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    calls = git_project.calls()[6:]
    # the edit is a change made while ralph was not running: PROMPT.md drops to 2/3; the
    # modified spec goes back to 0/3 and is taken first (tier 2) in IMPLEMENT mode
    assert (calls[0]["spec"], calls[0]["mode"]) == ("specs/api.spec.md", "IMPLEMENT")
    assert [c["spec"] for c in calls].count("PROMPT.md") == 1
    assert "spec changed" in res.stdout or "goes back to 0/3" in res.stdout


def test_agent_ticking_its_own_spec_is_a_change_not_a_modification(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "- [ ] one\n"})
    cmd = git_project.fake(
        {
            "PROMPT.md": [
                {"write": {"PROMPT.md": "- [x] one\n"}, "signal": "DONE"},
                {"signal": "DONE"},
            ]
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert [c["mode"] for c in git_project.calls()] == ["IMPLEMENT", "REVIEW", "REVIEW"]
    state = git_project.state()
    import hashlib

    assert state["specs"][0]["last_hash"] == hashlib.sha256(b"- [x] one\n").hexdigest()


def test_state_persists_across_restarts_and_iteration_keeps_counting(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "--max-iterations", "2")
    assert res.exit_code == 3, res
    # DONE without changes from 0/3 is 1/3, and a switch to the next spec
    assert git_project.counts() == {"PROMPT.md": 1, "specs/api.spec.md": 1}
    assert git_project.state()["iteration"] == 2
    res = git_project.run("run", *cmd, "--max-iterations", "2")
    assert res.exit_code == 3, res
    # resumed by priority (tier 4, alphabetical), numbering goes on
    assert [c["spec"] for c in git_project.calls()[2:]] == ["PROMPT.md", "specs/api.spec.md"]
    assert git_project.counts() == {"PROMPT.md": 2, "specs/api.spec.md": 2}
    assert [c["iteration"] for c in git_project.calls()] == ["1", "2", "3", "4"]
    assert git_project.state()["iteration"] == 4
    # a run's own budget, not a maximum that grows run after run (8/20, 8/28...)
    assert git_project.state()["max_iterations"] == 2


def test_max_iterations_exit_code_three(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "CONTINUE"}]})
    res = git_project.run("run", *cmd, "-n", "3")
    assert res.exit_code == 3, res
    assert len(git_project.calls()) == 3
    assert "max iterations" in res.stdout


def test_run_that_completes_on_its_last_allowed_rotation_exits_zero(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd, "-n", "3").exit_code == 0


def test_stuck_and_gutter_stop_with_exit_five(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    for tag in ("STUCK", "GUTTER"):
        cmd = git_project.fake({"*": [{"signal": tag}]})
        res = git_project.run("run", *cmd)
        assert res.exit_code == 5, res
        assert git_project.state()["specs"][0]["last_status"] == "STUCK"


def test_no_signal_counts_as_continue_and_is_stored_as_none(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"say": "I worked but forgot the tag"}]})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    spec = git_project.state()["specs"][0]
    assert (spec["last_status"], spec["done_count"]) == ("NONE", 0)
    assert "no signal" in res.stdout


def test_failed_rotation_is_error_and_noted_in_handoff(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"PROMPT.md": [{"signal": "DONE", "exit": 3}, {"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    ends = git_project.rotation_ends()
    assert ends[0]["signal"] == "ERROR"  # a DONE from a crashed agent never counts
    assert ends[0]["done_count"] == 0
    handoffs = list((git_project.root / ".ralph/handoffs").glob("*.md"))
    assert len(handoffs) == 1
    assert "rotation 1 failed (exit code 3)" in handoffs[0].read_text()
    # the next rotation's prompt carries the note
    assert git_project.calls()[1]["stdin_len"] > 0
    prompt = (git_project.root / ".ralph/prompt.md").read_text()
    assert "rotation 1 failed" in prompt


def test_timeout_is_a_failed_rotation(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.script({"*": [{"sleep": 30, "signal": "DONE"}]})
    res = git_project.run("run", "--agent-command", cmd, "-n", "1", "--timeout", "0.5")
    assert res.exit_code == 3, res
    assert git_project.state()["specs"][0]["last_status"] == "ERROR"
    assert "timed out" in res.stdout


def test_agent_environment_and_prompt(git_project: Project) -> None:
    git_project.write({"specs/sub/x.spec.md": "# the spec text\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    first = git_project.calls()[0]
    assert first["spec"] == "specs/sub/x.spec.md"
    assert first["mode"] == "IMPLEMENT"
    assert first["iteration"] == "1"
    assert Path(first["state_dir"]) == (git_project.root / ".ralph").resolve()
    assert Path(first["cwd"]).resolve() == git_project.root.resolve()
    assert first["prompt_file_same"] is True
    assert first["handoff"].endswith(".ralph/handoffs/x.spec-" + first["handoff"][-9:-3] + ".md")
    assert [c["mode"] for c in git_project.calls()] == ["IMPLEMENT", "REVIEW", "REVIEW"]
    # the last prompt is the final verification's: every spec's text, in VERIFY mode
    prompt = (git_project.root / ".ralph/prompt.md").read_text()
    assert "# the spec text" in prompt
    assert "[VERIFY]" in prompt
    (verify,) = git_project.verify_calls()
    assert (verify["iteration"], verify["specs"]) == ("4", ["specs/sub/x.spec.md"])


def test_prompt_larger_than_the_argument_limit(git_project: Project) -> None:
    big = "- [ ] requirement " + "x" * 200 + "\n"
    git_project.write({"PROMPT.md": big * 20_000})  # about 4 MB
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert git_project.calls()[0]["stdin_len"] > 4_000_000


def test_echoed_prompt_does_not_count_as_done(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "print <ralph>DONE</ralph> when finished\n"})
    cmd = git_project.fake({"*": [{"echo_prompt": True}]})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    assert git_project.state()["specs"][0]["last_status"] == "NONE"
    assert git_project.counts() == {"PROMPT.md": 0}


def test_agent_commit_counts_as_a_change(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {"PROMPT.md": [{"write": {"a.py": "1"}, "commit": "work", "signal": "CONTINUE"}]}
    )
    res = git_project.run("run", *cmd, "-n", "1")
    assert res.exit_code == 3, res
    spec = git_project.state()["specs"][0]
    assert spec["modified_files"] is True
    assert git_project.git("status", "--porcelain") == ""  # clean tree, but HEAD moved


def test_changes_while_ralph_was_not_running_drop_verified_specs(git_project: Project) -> None:
    git_project.write(TWO_SPECS)
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    git_project.write({"notes.txt": "edited by the user between runs\n"})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 0, res  # one review each brings them back
    # the files that changed, then the specs that go back to 2/3: each named as what it is
    assert (
        "files changed since the last run: notes.txt; verified specs back to 2/3 for one more "
        "review: PROMPT.md, specs/api.spec.md"
    ) in res.stdout
    later = git_project.calls()[6:]
    assert [(c["spec"], c["mode"]) for c in later] == [
        ("PROMPT.md", "REVIEW"),
        ("specs/api.spec.md", "REVIEW"),
    ]


def test_unchanged_tree_between_runs_keeps_three_of_three(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert len(git_project.calls()) == 3  # nothing to do: no agent started


def test_history_and_handoff_names(git_project: Project) -> None:
    git_project.write(
        {"PROMPT.md": "x\n", "specs/api.spec.md": "a\n", "specs/v2/api.spec.md": "b\n"}
    )
    cmd = git_project.fake({"*": [{"say": "hello from the agent", "signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    import hashlib

    def slug(name: str, path: str) -> str:
        return f"{name}-{hashlib.sha256(path.encode()).hexdigest()[:6]}"

    history = git_project.root / ".ralph/history"
    names = sorted(p.name for p in history.iterdir())
    assert names == sorted(
        [
            slug("000-prompt", "PROMPT.md"),
            slug("api.spec", "specs/api.spec.md"),
            slug("api.spec", "specs/v2/api.spec.md"),
            "final-verification",  # the final verification's own history
        ]
    )
    logs = sorted((history / slug("000-prompt", "PROMPT.md")).iterdir())
    assert [p.name for p in logs] == ["001.log", "004.log", "007.log"]
    assert "hello from the agent" in logs[0].read_text()
    # current.log is the last rotation's: the final verification's
    assert "final verification" in (git_project.root / ".ralph/current.log").read_text()


def test_hostile_output_is_logged_and_the_tag_still_found(git_project: Project) -> None:
    import sys

    from tests.conftest import FAKES

    git_project.write({"PROMPT.md": "x\n"})
    cmd = f"{sys.executable} {FAKES / 'noisy_agent.py'}"
    res = git_project.run("run", "--agent-command", cmd, "-n", "1")
    assert res.exit_code == 3, res
    assert git_project.state()["specs"][0]["last_status"] == "DONE"
    log = next((git_project.root / ".ralph/history").rglob("001.log"))
    assert log.stat().st_size > 6 << 20  # the history keeps every byte
    assert "\x1b" not in res.stdout


def test_damaged_snapshot_counts_as_changed_not_as_an_error(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    (git_project.store / "snapshot.json").write_text("{garbage")
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert "the last run's snapshot is missing or unreadable" in res.stdout
    assert "verified specs back to 2/3 for one more review: PROMPT.md" in res.stdout
    assert len(git_project.calls()) == 4  # one more review after the drop to 2/3
