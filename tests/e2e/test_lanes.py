"""`ralph run --parallel N`: lanes in git worktrees, merged one at a time into the user's
branch, every spec verified on the merged tree (real CLI, real agent programs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.store.live.lanes import lanes_file
from tests.conftest import Project
from tests.e2e.test_pool_faults import Script, claude, claude_calls

__all__ = ["claude"]  # the fixture, used by name

FOUR = {f"specs/{n}.spec.md": f"# {n}\n- [ ] {n}.txt exists\n" for n in "abcd"}


def after_merge_of(path: str, text: str) -> str:
    """A shell step that waits (bounded) until the user's branch has `text` in `path`: the
    other lane's merge, so that the order of merges does not depend on timing."""
    return (
        "for i in $(seq 1200); do git show main:" + path + " 2>/dev/null | grep -q '" + text + "'"
        " && break; sleep 0.05; done"
    )


def lanes_project(project: Project, files: dict[str, str]) -> Project:
    project.git("init", "-q", "-b", "main")
    project.write({**files, ".gitignore": ".ralph/\n"})
    project.commit_all()
    return project


def branches(project: Project) -> list[str]:
    out = project.git("branch", "--format=%(refname:short)")
    return sorted(out.split())


def worktrees(project: Project) -> list[str]:
    out = project.git("worktree", "list", "--porcelain")
    return [line for line in out.splitlines() if line.startswith("worktree ")]


@pytest.mark.slow
def test_independent_specs_are_verified_in_parallel_and_merged(project: Project) -> None:
    lanes_project(project, FOUR)
    steps = {
        path: [
            {"write": {f"{Path(path).name[0]}.txt": "done\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ]
        for path in FOUR
    }
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "4", "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert project.counts() == dict.fromkeys(FOUR, 3)
    for n in "abcd":  # every lane's work is on the user's branch
        assert (project.root / f"{n}.txt").read_text() == "done\n"
    assert project.git("status", "--porcelain") == ""
    assert branches(project) == ["main"]  # merged lane branches removed
    assert len(worktrees(project)) == 1  # no worktree left behind
    cwds = {c["cwd"] for c in project.calls()}
    assert len(cwds) >= 4 and str(project.root) not in cwds  # each spec in its own worktree
    assert len(project.verify_calls()) == 1
    assert project.verify_calls()[0]["cwd"] == str(project.root)  # on the integrated tree
    merges = project.worklog("lane_merge")
    assert {m["spec"] for m in merges} == set(FOUR)
    print(res.stdout)


@pytest.mark.slow
def test_two_specs_editing_the_same_lines_conflict_and_the_agent_resolves(
    project: Project,
) -> None:
    specs = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
    lanes_project(project, {**specs, "shared.txt": "base\n"})
    resolve = {
        "run": "git -c user.name=t -c user.email=t@t merge main >/dev/null 2>&1",
        "write": {"shared.txt": "from a\nfrom b\n"},
        "commit": "merge main, both specs kept",
        "signal": "DONE",
    }
    steps = {
        "specs/a.spec.md": [
            {"write": {"shared.txt": "from a\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        # b is slower: a merges first, and b's merge conflicts on the same line
        "specs/b.spec.md": [
            {
                "run": after_merge_of("shared.txt", "from a"),
                "write": {"shared.txt": "from b\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
            {"signal": "DONE"},
            resolve,
            {"signal": "DONE"},
        ],
    }
    res = project.run(
        "run", "--agent-command", project.script(steps), "--parallel", "2", "--headless"
    )
    assert res.exit_code == 0, res.stdout + res.stderr
    conflicts = project.worklog("lane_conflict")
    assert conflicts and conflicts[0]["spec"] == "specs/b.spec.md"
    assert conflicts[0]["files"] == ["shared.txt"]
    assert conflicts[0]["others"] == ["specs/a.spec.md"]
    # the agent got the rotation: its handoff named the files and the other spec
    b_calls = [c for c in project.calls() if c["spec"] == "specs/b.spec.md"]
    assert len(b_calls) >= 4
    assert (project.root / "shared.txt").read_text() == "from a\nfrom b\n"
    log = project.git("log", "--format=%s", "main")
    assert "merge main, both specs kept" in log  # the agent's own resolution, not ralph's
    assert project.counts() == dict.fromkeys(specs, 3)
    assert branches(project) == ["main"]
    assert "conflicts in shared.txt" in res.stdout


@pytest.mark.slow
def test_the_conflict_handoff_names_files_and_the_other_spec(project: Project) -> None:
    specs = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
    lanes_project(project, {**specs, "shared.txt": "base\n"})
    steps = {
        "specs/a.spec.md": [
            {"write": {"shared.txt": "from a\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        "specs/b.spec.md": [
            {
                "run": after_merge_of("shared.txt", "from a"),
                "write": {"shared.txt": "from b\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
            {"signal": "DONE"},
            {"signal": "STUCK"},  # stops the run: the handoff is still there to read
        ],
    }
    res = project.run(
        "run", "--agent-command", project.script(steps), "--parallel", "2", "--headless"
    )
    assert res.exit_code == 5, res.stdout + res.stderr
    handoff = (project.root / ".ralph" / "handoffs").glob("*b*.md")
    text = "".join(p.read_text() for p in handoff)
    assert "conflicts in shared.txt with the work of specs/a.spec.md" in text
    assert "git merge main" in text
    # nothing was resolved silently: main has a's line, b's work stays on its branch
    assert (project.root / "shared.txt").read_text() == "from a\n"
    lane = [b for b in branches(project) if b.startswith("ralph/b-")]
    assert lane, branches(project)
    assert project.git("show", f"{lane[0]}:shared.txt") == "from b\n"
    assert f"lane kept (its spec not verified): specs/b.spec.md: branch {lane[0]}" in res.stdout


CHECKED = """---
checks:
  - name: {name}
    method: external
    config:
      command: grep -q "^{line}$" config.txt
---
# {name}
"""


@pytest.mark.slow
def test_a_merge_that_breaks_another_specs_check_drops_it_until_fixed(project: Project) -> None:
    specs = {
        "specs/a.spec.md": CHECKED.format(name="a", line="x = 1"),
        "specs/b.spec.md": CHECKED.format(name="b", line="y = 1"),
    }
    lanes_project(project, specs)
    steps = {
        "specs/a.spec.md": [
            {"write": {"config.txt": "x = 1\n"}, "signal": "DONE"},
            {"signal": "DONE"},
            {"signal": "DONE"},
            {"signal": "DONE"},  # after b's merge: refused, config.txt lost x = 1
            {"write": {"config.txt": "x = 1\ny = 1\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        # b overwrites config.txt (no conflict for git: a's version is its base by then)
        "specs/b.spec.md": [
            {"run": after_merge_of("config.txt", "x = 1"), "signal": "CONTINUE"},
            {
                "run": "git -c user.name=t -c user.email=t@t merge main >/dev/null",
                "write": {"config.txt": "y = 1\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
        ],
    }
    res = project.run(
        "run", "--agent-command", project.script(steps), "--parallel", "2", "--headless"
    )
    assert res.exit_code == 0, res.stdout + res.stderr
    refused = [e for e in project.rotation_ends() if e["signal"] == "REFUSED"]
    assert refused and refused[0]["spec"] == "specs/a.spec.md"
    assert (project.root / "config.txt").read_text() == "x = 1\ny = 1\n"
    assert project.counts() == dict.fromkeys(specs, 3)
    # (whether b's work reached main before or after a's lane merged at 3/3 depends on the
    # lanes' timing: a's check refused it either way, and only the fix verified it)


def test_an_unclean_work_tree_is_refused_in_one_line(project: Project) -> None:
    lanes_project(project, FOUR)
    project.write({"wip.py": "x = 1\n"})
    cmd = project.script({"*": [{"signal": "DONE"}]})
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 2, res.stdout + res.stderr
    assert "--parallel needs a clean work tree" in res.stderr
    assert "wip.py" in res.stderr and "git stash -u" in res.stderr
    assert "Traceback" not in res.stderr
    assert project.calls() == []
    assert branches(project) == ["main"]


def test_parallel_needs_a_git_repository(project: Project) -> None:
    project.write(FOUR)
    cmd = project.script({"*": [{"signal": "DONE"}]})
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 1, res.stdout + res.stderr
    assert "--parallel needs a git repository" in res.stderr
    assert project.calls() == []


def test_parallel_in_ralph_yaml(project: Project) -> None:
    files = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
    lanes_project(project, files)
    cmd = project.script({"*": [{"write": {"x.txt": "1"}, "signal": "DONE"}, {"signal": "DONE"}]})
    project.write({"ralph.yaml": "parallel: 2\n"})
    project.commit_all("config")
    res = project.run("run", "--agent-command", cmd, "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert project.worklog("lane_open")  # lanes, from the file's `parallel: 2`
    assert {c["cwd"] for c in project.calls()} != {str(project.root)}


def test_a_rate_limited_agent_is_benched_while_the_other_lanes_go_on(
    project: Project, claude: Script
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    script = claude([{"kind": "rate_limit", "resets_in": 3600, "write": {"half.txt": "x"}}])
    # The other agent's first rotation ends only once claude's limit is on record: otherwise
    # its lane could come back for an agent before ralph knows claude is limited (and rightly
    # give it claude again), which is timing, not the rule under test.
    worklog = project.root / ".ralph" / "worklog.jsonl"
    limit_known = (
        f"for i in $(seq 400); do grep -q rate_limit {worklog} 2>/dev/null && break; "
        "sleep 0.05; done"
    )
    first = {"run": limit_known, "write": {"w.txt": "1"}, "signal": "DONE"}
    other = project.script({"*": [first, {"signal": "DONE"}]})
    res = project.run(
        "run", "--agent", "claude", "--agent-command", other, "--parallel", "2", "--headless"
    )
    assert res.exit_code == 0, res.stdout + res.stderr
    assert claude_calls(script) == 1  # benched for an hour after its rate limit
    ends = project.rotation_ends()
    limited = [e for e in ends if e["fault"] == "rate_limit"]
    assert len(limited) == 1 and limited[0]["agent"] == "claude"
    after = [e for e in ends if e["iteration"] > limited[0]["iteration"]]
    assert after and all(e["agent"] != "claude" for e in after)
    # the rate-limited rotation's work is committed on its lane and merged, never lost
    assert (project.root / "half.txt").read_text() == "x"
    assert project.counts() == {"specs/a.spec.md": 3, "specs/b.spec.md": 3}


def test_status_shows_where_each_unmerged_lane_is(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
        "specs/b.spec.md": [
            {"run": after_merge_of("a.txt", "a"), "write": {"b.txt": "b\n"}, "signal": "STUCK"}
        ],
    }
    res = project.run("run", "--agent-command", project.script(steps), "--parallel", "2")
    assert res.exit_code == 5, res.stdout + res.stderr
    status = project.run("status")
    lane = next(b for b in branches(project) if b.startswith("ralph/b-"))
    assert f"lane: specs/b.spec.md on {lane} in .ralph/worktrees/{lane[6:]}" in status.stdout
    data = json.loads(project.run("status", "--json").stdout)
    # a's counted DONE reached main at once (its lane goes on, unverified); b's never counted
    lanes = {x["spec"]: x for x in data["lanes"]}  # in the order they opened
    assert sorted(lanes) == ["specs/a.spec.md", "specs/b.spec.md"]
    assert (project.root / lanes["specs/b.spec.md"]["worktree"] / "b.txt").read_text() == "b\n"
    assert project.git("show", "main:a.txt") == "a\n"
    assert not (project.root / "b.txt").exists()


def test_parallel_1_is_the_one_spec_loop(git_project: Project) -> None:
    files = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
    git_project.write(files)  # uncommitted: one-spec mode does not need a clean tree
    cmd = git_project.fake({"*": [{"write": {"x.txt": "1"}, "signal": "DONE"}, {"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "--parallel", "1")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert {c["cwd"] for c in git_project.calls()} == {str(git_project.root)}
    assert not lanes_file(git_project.root).exists()
    assert not (git_project.root / ".ralph" / "worktrees").exists()
    assert not git_project.worklog("lane_open")


@pytest.mark.slow
def test_a_lanes_question_stops_the_run_and_the_answer_reaches_the_next_rotation(
    project: Project,
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    steps = {
        "specs/a.spec.md": [{"say": "which database?", "signal": "QUESTION"}, {"signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "signal": "DONE"}, {"signal": "DONE"}],
    }
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 5, res.stdout + res.stderr
    assert "question on specs/a.spec.md" in res.stdout
    question = project.root / ".ralph" / "question.md"
    assert "which database?" in question.read_text()
    (project.root / ".ralph" / "answer.md").write_text("postgres\n")
    steps["specs/a.spec.md"] = [{"echo_prompt": True, "signal": "DONE"}]
    res = project.run("run", "--agent-command", project.script(steps), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert project.worklog("answer_delivered")
    assert not question.exists()


@pytest.mark.slow
def test_an_open_lane_gets_the_merged_work_before_its_next_rotation(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
        "specs/b.spec.md": [
            {"run": after_merge_of("a.txt", "a"), "write": {"b.txt": "b\n"}, "signal": "DONE"},
            # b's next rotation runs on a tree that has a's merged work
            {"run": "test -f a.txt && echo yes > b-saw-a.txt", "signal": "DONE"},
            {"signal": "DONE"},
        ],
    }
    res = project.run("run", "--agent-command", project.script(steps), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    # b's lane was made before a's work reached main: its second rotation saw it, brought in
    assert (project.root / "b-saw-a.txt").read_text() == "yes\n"


@pytest.mark.slow
def test_headless_lines_and_json_events_name_each_lanes_spec(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    steps = {"*": [{"say": "working on it", "signal": "DONE"}]}
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless", "-v")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "specs/a.spec.md: working on it" in res.stdout
    assert "specs/b.spec.md: working on it" in res.stdout
    project.run("reset")
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--log-format", "json")
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    started = [e for e in events if e["event"] == "rotation_started"]
    assert {e["spec"] for e in started} == {"specs/a.spec.md", "specs/b.spec.md", "(all specs)"}


def test_a_counted_done_shares_its_work_so_no_spec_is_reviewed_again(project: Project) -> None:
    """a's review waits (bounded) for b's work in the user's branch: it arrives at b's first
    counted DONE, not at b's 3/3. Both lanes then review on the merged tree, so their 3/3
    merges change nothing and neither spec takes a fourth rotation."""
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    steps = {
        "specs/a.spec.md": [
            {"write": {"a.txt": "a\n"}, "signal": "DONE"},
            {"run": after_merge_of("b.txt", "b"), "signal": "DONE"},
            {"signal": "DONE"},
        ],
        "specs/b.spec.md": [
            {"run": after_merge_of("a.txt", "a"), "write": {"b.txt": "b\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
    }
    res = project.run("run", "--agent-command", project.script(steps), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    ends = project.rotation_ends()
    assert [e["spec"] for e in ends].count("specs/a.spec.md") == 3
    assert [e["spec"] for e in ends].count("specs/b.spec.md") == 3
    merges = project.worklog("lane_merge")
    early = [m for m in merges if not m["closes"]]
    assert {m["spec"] for m in early} == {"specs/a.spec.md", "specs/b.spec.md"}
    assert all(m["downgraded"] == [] for m in merges)
    assert "specs/a.spec.md: lane's work merged (the lane goes on) into main" in res.stdout


@pytest.mark.slow
def test_only_a_counted_done_shares_a_lanes_work(project: Project) -> None:
    """Work the agent left unfinished (CONTINUE) stays in the lane; the DONE that counts 1/3
    brings it into the user's branch, before the spec is verified."""
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    seen = "../../../../seen.txt"  # beside the project: the lane's worktree is .ralph/worktrees/x
    look = f"(git show main:a.txt 2>/dev/null || echo none) >> {seen}"
    steps = {
        "specs/a.spec.md": [
            {"write": {"a.txt": "a\n"}, "signal": "CONTINUE"},
            {"run": look, "signal": "DONE"},
            {"run": look, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        "specs/b.spec.md": [{"signal": "DONE"}],
    }
    res = project.run("run", "--agent-command", project.script(steps), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (project.root.parent / "seen.txt").read_text() == "none\na\n"
