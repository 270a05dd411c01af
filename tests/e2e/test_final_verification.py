"""The final, independent verification once every spec is at 3/3 (seed verification-phase-task).

End to end through the CLI with the scripted agent: its "VERIFY" steps are what it does in a
verification rotation (RALPH_MODE=VERIFY).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.conftest import Project

DONE = [{"signal": "DONE"}]


SPEC = "# goal\n- [x] the work\n"


def yaml(project: Project, text: str) -> None:
    project.write({"ralph.yaml": text})


def failing_tests(project: Project) -> None:
    """A test command that fails until `fixed.txt` exists (ralph runs it itself)."""
    project.write(
        {
            "check.py": "import pathlib, sys\n"
            "ok = pathlib.Path('fixed.txt').exists()\n"
            "print('1 passed' if ok else 'FAILED test_the_work')\n"
            "sys.exit(0 if ok else 1)\n",
        }
    )
    yaml(project, f"test_command: {sys.executable} check.py\n")


def test_pass_archives_the_run_and_exits_zero(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "specs/api.spec.md": "# api\n"})
    cmd = git_project.fake({"*": DONE})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert "final verification passed" in res.stdout
    (call,) = git_project.verify_calls()
    # one rotation over every spec, after every spec reached 3/3
    assert call["mode"] == "VERIFY"
    assert call["specs"] == ["PROMPT.md", "specs/api.spec.md"]
    assert call["iteration"] == "7"
    prompt = (git_project.root / ".ralph/prompt.md").read_text()
    assert "[VERIFY]" in prompt
    assert "- [x] the work" in prompt and "# api" in prompt
    assert "VERIFY_PASS" in prompt and "VERIFY_FAIL" in prompt
    state = git_project.state()
    assert state["final_verification"]["passed"] is True
    (folder,) = (git_project.root / ".ralph/archive").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == [
        "progress.md",
        "state.json",
        "worklog.jsonl",
    ]
    assert json.loads((folder / "state.json").read_text())["final_verification"]["passed"]
    assert "final verification 1 (rotation 7): PASS" in (folder / "progress.md").read_text()
    # the live state stays for `ralph status`; progress starts afresh for the next work
    assert not (git_project.root / ".ralph/progress.md").exists()
    transitions = [e["transition"] for e in git_project.worklog("verification")]
    assert transitions == ["started", "answered", "passed"]
    # nothing changed since: the next run has nothing to do and starts no agent
    again = git_project.run("run", *cmd)
    assert again.exit_code == 0, again
    assert len(git_project.all_calls()) == 7


def test_final_verification_false_ends_at_three_of_three_as_before(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    yaml(git_project, "final_verification: false\n")
    res = git_project.run("run", *git_project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert git_project.verify_calls() == []
    assert git_project.state()["iteration"] == 3
    assert not (git_project.root / ".ralph/archive").exists()


def test_fail_untick_sends_the_spec_back_to_work_and_the_loop_goes_on(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC, "specs/api.spec.md": "# api\n- [x] api\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            "VERIFY": [
                {
                    "write": {"specs/api.spec.md": "# api\n- [ ] api\n- [ ] handle errors\n"},
                    "say": "api does not handle errors",
                    "signal": "VERIFY_FAIL",
                },
                {"signal": "VERIFY_PASS"},
            ],
            "specs/api.spec.md": [
                {"signal": "DONE"},
                {"signal": "DONE"},
                {"signal": "DONE"},
                {"write": {"specs/api.spec.md": "# api\n- [x] api\n- [x] handle errors\n"}},
                {"signal": "DONE"},
            ],
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    modes = [(c["mode"], c["spec"]) for c in git_project.all_calls()]
    first_verify = modes.index(("VERIFY", "PROMPT.md"))
    after = modes[first_verify + 1 :]
    # the edited spec is "modified": back to 0/3, worked on (IMPLEMENT) with a fresh agent
    assert after[0] == ("IMPLEMENT", "specs/api.spec.md")
    assert ("REVIEW", "PROMPT.md") in after  # the other spec dropped to 2/3: one more review
    assert after[-1][0] == "VERIFY"
    ends = git_project.worklog("verification")
    assert [e["transition"] for e in ends if e["transition"] in ("passed", "failed")] == [
        "failed",
        "passed",
    ]
    failed = next(e for e in ends if e["transition"] == "failed")
    assert "changed 1 tracked file(s): specs/api.spec.md" in " ".join(failed["reasons"])
    assert failed["downgraded"] == ["PROMPT.md", "specs/api.spec.md"]
    (handoff,) = (git_project.root / ".ralph/handoffs").glob("api.spec-*.md")
    # the failure's note told the next rotation; once a verification passed it is history
    assert "final verification 1" not in handoff.read_text()
    kept = git_project.root / ".ralph/history" / handoff.stem / "verification.md"
    assert "final verification 1 (rotation" in kept.read_text()
    assert "api does not handle errors" not in handoff.read_text()
    assert git_project.state()["final_verification"] == {
        "passed": True,
        "failures": 0,
        "bypassed": False,
        "accepted": False,
        "last_failure": None,
    }


def test_three_consecutive_failures_exit_six_with_what_kept_failing(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake(
        {"*": DONE, "VERIFY": [{"say": "the README is missing", "signal": "VERIFY_FAIL"}]}
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert len(git_project.verify_calls()) == 3
    assert "failed 3 times in a row" in res.stdout
    assert "the verifier answered VERIFY_FAIL" in res.stdout
    # exit 6 says where the verifier's reasons are
    ended = [line for line in res.stdout.splitlines() if "run ended:" in line]
    assert (
        ended and "the verifier's reasons are in .ralph/handoffs/final-verification.md" in ended[0]
    )
    state = git_project.state()
    assert state["final_verification"]["failures"] == 3
    assert not (git_project.root / ".ralph/archive").exists()
    errors = (git_project.root / ".ralph/errors.log").read_text()
    assert errors.count("failed: the verifier answered VERIFY_FAIL") == 3
    # between the failures every spec got one more review with the findings in its handoff
    modes = [c["mode"] for c in git_project.all_calls()]
    assert modes == ["IMPLEMENT", "REVIEW", "REVIEW", "VERIFY"] + ["REVIEW", "VERIFY"] * 2


def test_max_verification_failures_is_configurable(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    yaml(git_project, "max_verification_failures: 1\n")
    cmd = git_project.fake({"*": DONE, "VERIFY": [{"signal": "VERIFY_FAIL"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert len(git_project.verify_calls()) == 1


def test_dishonest_verifier_passes_without_running_the_failing_tests(
    git_project: Project,
) -> None:
    """VERIFY_PASS while the test command fails: never verified, whatever it answers."""
    git_project.write({"PROMPT.md": SPEC})
    failing_tests(git_project)
    cmd = git_project.fake({"*": DONE, "VERIFY": [{"signal": "VERIFY_PASS"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert "every spec verified" not in res.stdout
    state = git_project.state()
    assert state["final_verification"]["passed"] is False
    assert (
        "check.py` (test_command (ralph.yaml)) failed: exit code 1"
        in (state["final_verification"]["last_failure"])
    )
    assert "FAILED test_the_work" in state["final_verification"]["last_failure"]
    assert not (git_project.root / ".ralph/archive").exists()
    checks = git_project.worklog("check")
    assert [c["passed"] for c in checks] == [False, False, False]
    status = json.loads(git_project.run("status", "--json").stdout)
    assert status["final_verification"]["passed"] is False


def test_the_test_command_passing_and_verify_pass_verifies(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "fixed.txt": "yes"})
    failing_tests(git_project)
    res = git_project.run("run", *git_project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert [c["passed"] for c in git_project.worklog("check")] == [True]
    prompt = (git_project.root / ".ralph/prompt.md").read_text()
    assert "check.py`" in prompt  # the verifier is told what ralph will run


def test_the_projects_test_command_runs_in_the_clean_room(git_project: Project) -> None:
    """The agent's ignored `fixed.txt` makes the test command pass in the work tree; the
    final verification runs it where only the files ralph compares are."""
    git_project.write({"PROMPT.md": SPEC, ".gitignore": ".ralph/\nfixed.txt\n"})
    failing_tests(git_project)
    yaml(git_project, f"test_command: {sys.executable} check.py\nmax_verification_failures: 1\n")
    git_project.commit_all()
    cmd = git_project.fake({"*": [{"write": {"fixed.txt": "yes"}, "signal": "DONE"}, *DONE]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert "FAILED test_the_work" in git_project.state()["final_verification"]["last_failure"]


def test_a_test_command_that_cannot_start_fails_the_verification(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    yaml(git_project, "test_command: ./no-such-test-runner\nmax_verification_failures: 1\n")
    res = git_project.run("run", *git_project.fake({"*": DONE}))
    assert res.exit_code == 6, res
    assert "no-such-test-runner` (test_command (ralph.yaml)) failed: exit code 127" in res.stdout


def test_a_verifier_that_edits_or_gives_no_verdict_does_not_pass(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    yaml(git_project, "max_verification_failures: 2\n")
    cmd = git_project.fake(
        {
            "*": DONE,
            "VERIFY": [
                {"write": {"fix.py": "x = 1\n"}, "signal": "VERIFY_PASS"},
                {"signal": "DONE"},
            ],
        }
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    reasons = [e["reasons"] for e in git_project.worklog("verification") if "reasons" in e]
    assert "changed 1 tracked file(s): fix.py" in reasons[0][0]
    assert "no verdict (last tag: DONE)" in reasons[1][0]


def test_verify_tags_in_an_ordinary_rotation_mean_nothing(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake({"*": [{"signal": "VERIFY_PASS"}]})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    spec = git_project.state()["specs"][0]
    assert (spec["last_status"], spec["done_count"]) == ("NONE", 0)
    assert git_project.verify_calls() == []


def test_the_verification_runs_even_when_the_work_used_the_last_rotation(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("run", *git_project.fake({"*": DONE}), "-n", "3")
    assert res.exit_code == 0, res
    assert len(git_project.verify_calls()) == 1


def test_failures_persist_across_a_restart(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake({"*": DONE, "VERIFY": [{"signal": "VERIFY_FAIL"}]})
    res = git_project.run("run", *cmd, "-n", "4")  # 3 + the verification
    assert res.exit_code == 3, res
    assert git_project.state()["final_verification"]["failures"] == 1
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert len(git_project.verify_calls()) == 3  # 1 + 2: the count went on


def test_verification_in_the_panel_and_plain_lines(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("run", *git_project.fake({"*": DONE}))
    assert "[VERIFY] (all specs)" in res.stdout
    assert "VERIFY_PASS" in res.stdout
    assert "run archived in .ralph/archive/" in res.stdout


def test_status_log_shows_the_worklog_tail(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    git_project.run("run", *git_project.fake({"*": DONE}))
    res = git_project.run("status", "--log", "3")
    assert res.exit_code == 0, res
    lines = res.stdout.splitlines()
    assert "worklog (last 3 events):" in lines
    tail = lines[lines.index("worklog (last 3 events):") + 1 :]
    assert [line.split()[2] for line in tail] == ["budget", "archived", "run_end"]
    data = json.loads(git_project.run("status", "--json", "--log", "2").stdout)
    assert [e["event"] for e in data["worklog"]] == ["archived", "run_end"]
    assert git_project.run("status", "--log", "0").exit_code == 2


def test_demo_agent_verifies_every_listed_spec(git_project: Project, tmp_path: Path) -> None:
    git_project.write({"PROMPT.md": "# a\n- [ ] one\n", "specs/b.spec.md": "# b\n- [ ] two\n"})
    res = git_project.run("run", "--agent", "demo")
    assert res.exit_code == 0, res
    (log,) = (git_project.root / ".ralph/history/final-verification").iterdir()
    text = log.read_text()
    assert "check  PROMPT.md" in text and "check  specs/b.spec.md" in text


def test_a_specs_own_test_command_and_external_checks_run_in_the_verification(
    git_project: Project,
) -> None:
    """The front matter's test_command (which passed at DONE) is run again by ralph itself:
    a change since (here: the file it tests removed by hand) fails the verification."""
    reads = "import pathlib; pathlib.Path('ok.txt').read_text()"
    spec = (
        "---\n"
        f'test_command: {sys.executable} -c "{reads}"\n'
        "checks:\n"
        "  - name: lint\n"
        "    method: external\n"
        "    config: {command: 'true'}\n"
        "---\n# goal\n- [x] ok.txt exists\n"
    )
    git_project.write({"PROMPT.md": spec, "ok.txt": "yes"})
    yaml(git_project, "max_verification_failures: 1\n")
    cmd = git_project.fake({"*": DONE, "VERIFY": [{"delete": ["ok.txt"], "signal": "VERIFY_PASS"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    checks = [c for c in git_project.worklog("check") if c["iteration"] == 4]
    assert [(c["spec"], c["name"], c["passed"]) for c in checks] == [
        ("PROMPT.md", "test_command", False),
        ("PROMPT.md", "lint", True),
    ]
    last = git_project.state()["final_verification"]["last_failure"]
    assert "PROMPT.md: test_command: exit code 1" in last


def test_the_verifier_is_another_agent_of_the_pool_than_the_one_that_completed(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC, "specs/b.spec.md": "# b\n"})
    first = git_project.script({"*": DONE})
    other_script = git_project.root.parent / "other-script.json"
    other_script.write_text(json.dumps({"*": DONE}))
    second = f"{sys.executable} {Path(first.split()[1])} {other_script}"
    res = git_project.run("run", "--agent-command", first, "--agent-command", second)
    assert res.exit_code == 0, res
    calls = {
        "first": git_project.all_calls(),
        "second": [
            json.loads(line)
            for line in other_script.with_name("other-script.json.calls.jsonl")
            .read_text()
            .splitlines()
        ],
    }
    by_iteration = {int(c["iteration"]): (who, c["mode"]) for who, cs in calls.items() for c in cs}
    last = max(by_iteration)
    verifier, mode = by_iteration[last]
    completer, _ = by_iteration[last - 1]
    assert mode == "VERIFY"
    assert verifier != completer
