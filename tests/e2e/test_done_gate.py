"""The DONE gate end to end: `ralph run` with real agents (tests/fakes) on specs with front
matter. A DONE counts only when the spec's checks pass; iteration caps stop a spec for good."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import FAKES, Project
from tests.platforms import posix_signals

DONE = [{"signal": "DONE"}]


def status(project: Project) -> dict[str, Any]:
    res = project.run("status", "--json")
    assert res.exit_code == 0, res
    data = json.loads(res.stdout)
    assert isinstance(data, dict)
    return data


def worklog(project: Project, event: str) -> list[dict[str, Any]]:
    lines = (project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["event"] == event]


def front(**keys: str) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in keys.items()) + "---\n"


def test_done_over_a_failing_test_command_is_refused(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": front(test_command="'echo 2 tests failed; exit 1'") + "# goal\n"})
    res = p.run("run", *p.fake({"*": DONE}), "-n", "2")
    assert res.exit_code == 3, res
    row = p.state()["specs"][0]
    assert (row["done_count"], row["last_status"]) == (0, "REFUSED")
    assert "DONE refused: test_command: exit code 1, expected 0" in res.stdout
    # the reasons reach the worklog, the handoff and the next prompt
    checks = worklog(p, "check")
    assert [(c["name"], c["passed"]) for c in checks][:1] == [("test_command", False)]
    handoff = next((p.root / ".ralph" / "handoffs").iterdir()).read_text()
    assert "your DONE was refused" in handoff and "2 tests failed" in handoff
    prompt = (p.root / ".ralph" / "prompt.md").read_text()
    assert "### Your last DONE on this spec was refused" in prompt
    assert "2 tests failed" in prompt
    assert [s["last_status"] for s in status(p)["specs"]] == ["REFUSED"]


def test_done_with_passing_checks_counts_and_unchanged_tree_is_not_retested(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    runs = tmp_path / "runs"
    p.write(
        {
            "PROMPT.md": front(test_command=f"'echo run >> {runs}'") + "# goal\n- [ ] make x\n",
        }
    )
    script = p.fake({"*": [{"write": {"x.py": "x = 1\n"}, "signal": "DONE"}, *DONE]})
    res = p.run("run", *script)
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert "refused" not in res.stdout
    # the tests' bar at the start; three DONEs, but the two reviews saw the same tree as the
    # first check: one run; the final verification then runs it once more itself (it never
    # trusts a cache)
    assert runs.read_text().split() == ["run", "run", "run"]
    assert [c["cached"] for c in worklog(p, "check")] == [False, True, True, False]


def test_strict_tier_refuses_a_done_with_unticked_boxes(git_project: Project) -> None:
    p = git_project
    text = front(verification="strict") + "# goal\n- [ ] first\n- [ ] second\n"
    ticked = text.replace("[ ]", "[x]")
    p.write({"PROMPT.md": text})
    script = p.fake({"*": [{"signal": "DONE"}, {"write": {"PROMPT.md": ticked}, **DONE[0]}]})
    res = p.run("run", *script)
    assert res.exit_code == 0, res
    assert [e["signal"] for e in p.rotation_ends()] == ["REFUSED", "DONE", "DONE", "DONE"]
    assert "checkboxes: status: claimed complete, on disk incomplete (2 of 2" in res.stdout
    states = [t["to_state"] for t in worklog(p, "claim_transition")]
    assert states[:6] == ["read_state", "mismatch", "retry", "read_state", "mismatch", "escalate"]
    assert states[6:9] == ["read_state", "match", "pass"]


def test_refused_done_counts_as_continue_for_the_counter(git_project: Project) -> None:
    p = git_project
    flag = p.root.parent / "flag"
    p.write({"PROMPT.md": front(test_command=f"'test ! -f {flag}'") + "# goal\n"})
    # DONE, DONE (2/3) then the check starts failing without any file change
    script = p.fake({"*": [*DONE, *DONE, {"signal": "DONE"}]})
    res = p.run("run", *script, "-n", "2")
    assert res.exit_code == 3 and p.counts() == {"PROMPT.md": 2}
    flag.write_text("x")
    res = p.run("run", *script, "-n", "1")
    assert res.exit_code == 3
    row = p.state()["specs"][0]
    assert (row["done_count"], row["last_status"], row["modified_files"]) == (2, "REFUSED", False)


def test_semantic_check_asks_the_runs_agent_as_judge(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\nacceptance_criteria: [greets the user]\nchecks:\n"
            "  - method: semantic\n    config: {check_for: '{{acceptance_criteria}}'}\n---\n"
            "# goal\n"
        }
    )
    script = p.fake({"*": DONE, "JUDGE": "NOT_VERIFIED: no greeting anywhere"})
    res = p.run("run", *script, "-n", "2")
    assert res.exit_code == 3, res
    assert "DONE refused: semantic: NOT_VERIFIED: no greeting anywhere" in res.stdout
    judged = Path(str(p.root.parent / f"{p.root.name}-script.json.calls.jsonl.judge"))
    assert len(judged.read_text().splitlines()) == 2
    ok = p.fake({"*": DONE, "JUDGE": "VERIFIED"})
    assert p.run("run", *ok).exit_code == 0


def test_promise_of_the_coder_must_be_the_agents_own(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\ncoder: {promise: BUILT, description: it is built}\n---\n# goal\n",
        }
    )
    echo = p.fake({"*": [{"echo_prompt": True, "signal": "DONE"}]})
    res = p.run("run", *echo, "-n", "2")
    assert res.exit_code == 3
    assert "coder.promise: the agent did not print <promise>BUILT</promise>" in res.stdout
    honest = p.fake({"*": [{"say": "<promise>BUILT</promise>", "signal": "DONE"}]})
    assert p.run("run", *honest).exit_code == 0


def test_spec_iteration_cap_blocks_that_spec_and_the_others_go_on(git_project: Project) -> None:
    p = git_project
    a, b = "specs/a.spec.md", "specs/b.spec.md"
    p.write({a: front(max_iterations="2") + "# a\n", b: "# b\n"})
    script = p.fake({a: [{"signal": "CONTINUE"}], b: DONE})
    res = p.run("run", *script, "-n", "20")
    assert res.exit_code == 3, res
    assert "iteration cap reached: specs/a.spec.md (max_iterations 2 reached" in res.stdout
    rows = {s["path"]: s for s in status(p)["specs"]}
    assert rows[b]["done_count"] == 3 and rows[b]["blocked"] is None
    assert rows[a]["blocked"] == "max_iterations 2 reached (2 rotations)"
    assert res.stdout.count("specs/a.spec.md stopped: max_iterations 2 reached") == 1
    assert [e["spec"] for e in worklog(p, "spec_blocked")] == [a]
    plain = p.run("status").stdout
    assert "blocked: specs/a.spec.md: max_iterations 2 reached (2 rotations)" in plain
    assert [c["spec"] for c in p.calls()].count(a) == 2
    # the cap holds across runs until `ralph reset`
    assert p.run("run", *script).exit_code == 3
    assert [c["spec"] for c in p.calls()].count(a) == 2
    assert p.run("reset").exit_code == 0
    assert p.run("run", *script, "-n", "1").exit_code == 3
    assert [c["spec"] for c in p.calls()].count(a) == 3


def test_role_iteration_cap_counts_its_own_mode(git_project: Project) -> None:
    p = git_project
    p.write(
        {"PROMPT.md": "---\ncoder: {promise: P, description: d, max_iterations: 2}\n---\n# goal\n"}
    )
    res = p.run("run", *p.fake({"*": DONE}), "-n", "9")
    assert res.exit_code == 3, res
    assert len(p.calls()) == 2  # two IMPLEMENT rotations refused (no promise), then blocked
    row = status(p)["specs"][0]
    assert row["blocked"] == "coder.max_iterations 2 reached (2 IMPLEMENT rotations)"


def test_bad_front_matter_stops_before_anything_runs(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "---\ntest_comand: make test\n---\n# goal\n"})
    res = p.run("run", *p.fake({"*": DONE}))
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == (
        "error: PROMPT.md: front matter: test_comand: unknown key (did you mean 'test_command'?)"
    )
    assert "Traceback" not in res.stderr
    assert p.calls() == []
    assert not (p.root / ".ralph" / "state.json").exists()


def test_front_matter_broken_mid_run_refuses_done_without_crashing(git_project: Project) -> None:
    p = git_project
    text = front(test_command="'true'") + "# goal\n"
    p.write({"PROMPT.md": text, "specs/other.spec.md": "# other\n"})
    broken = "---\ntest_command: [unclosed\n---\n# goal\n"
    script = p.fake(
        {"PROMPT.md": [{"write": {"PROMPT.md": broken}, "signal": "DONE"}, *DONE], "*": DONE}
    )
    res = p.run("run", *script, "-n", "4")
    # refused until fixed: the third refusal in a row opens the circuit breaker (exit 5)
    assert res.exit_code == 5, res
    ends = p.rotation_ends()
    assert [e["signal"] for e in ends] == ["REFUSED"] * 3
    assert "Traceback" not in res.stderr
    warning = "PROMPT.md: line 2: front matter is not valid YAML"
    assert res.stdout.count(warning) >= 1
    assert f"{warning} (" in res.stdout and "its DONEs are refused until it is fixed" in res.stdout
    assert p.state()["iteration"] == 3


def test_agent_that_edits_the_front_matter_is_refused(git_project: Project) -> None:
    p = git_project
    text = front(test_command="'exit 1'") + "# goal\n"
    p.write({"PROMPT.md": text})
    # it drops the failing check and says DONE, then says DONE again on the checkless spec
    script = p.fake({"*": [{"write": {"PROMPT.md": "# goal\n"}, "signal": "DONE"}, *DONE]})
    res = p.run("run", *script, "-n", "3")
    assert res.exit_code == 5  # the third refusal in a row opens the circuit breaker
    assert "the agent changed the spec's front matter" in res.stdout
    assert "it was last changed by an agent, not a person" in res.stdout
    assert [e["signal"] for e in p.rotation_ends()] == ["REFUSED"] * 3
    assert p.counts() == {"PROMPT.md": 0}
    # a person accepts the change: the spec may be verified without those checks
    assert p.run("reset").exit_code == 0
    assert p.run("run", *script).exit_code == 0


def test_front_matter_restored_by_a_person_is_trusted_again(git_project: Project) -> None:
    p = git_project
    text = front(test_command="'true'") + "# goal\n"
    p.write({"PROMPT.md": text})
    weaker = front(test_command="'exit 0'") + "# goal\n"
    script = p.fake({"*": [{"write": {"PROMPT.md": weaker}, "signal": "DONE"}, *DONE]})
    assert p.run("run", *script, "-n", "2").exit_code == 3
    assert [e["signal"] for e in p.rotation_ends()] == ["REFUSED", "REFUSED"]
    p.write({"PROMPT.md": text})  # the person puts their front matter back
    assert p.run("run", *script).exit_code == 0
    assert p.state()["specs"][0]["agent_front_matter"] is None


def test_spec_without_front_matter_runs_no_checks(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "# goal\n- [ ] open box\n"})
    res = p.run("run", *p.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert worklog(p, "check") == [] and worklog(p, "done_gate") == []
    assert "What your DONE must pass" not in (p.root / ".ralph" / "prompt.md").read_text()


def test_prompt_lists_what_done_must_pass(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\noutcome: it greets\nacceptance_criteria: [says hello]\n"
            "test_command: 'true'\nverification: strict\n"
            "checks: [{name: lint, method: external, config: {command: ruff check}}]\n"
            "coder: {promise: GREETS, description: greeting printed}\n---\n# goal\n"
        }
    )
    assert p.run("run", *p.fake({"*": DONE}), "-n", "1").exit_code == 3
    prompt = p.calls()[0]["prompt_head"]
    assert prompt.startswith("# ralph: a rotation on PROMPT.md")
    text = (p.root / ".ralph" / "prompt.md").read_text()
    assert "## This rotation: 1/1 [IMPLEMENT], verification 0/3" in text
    section = text.split("## What your DONE must pass\n", 1)[1].split("\n## ", 1)[0]
    for line in (
        "- Outcome: it greets",
        "- Acceptance criterion: says hello",
        "- Test command (must exit 0): `true`",
        "- Check lint (external): ruff check",
        "- Strict tier: every checkbox of this spec must be ticked",
        "- As coder: when this is true: greeting printed, print `<promise>GREETS</promise>`",
    ):
        assert line in section, line


def test_check_that_cannot_start_refuses_and_the_loop_goes_on(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: external\n"
            "    config: {command: 'true', working_dir: gone}\n---\n# goal\n",
        }
    )
    res = p.run("run", *p.fake({"*": DONE}), "-n", "3")
    # the third refused DONE in a row opens the circuit breaker: headless, that aborts
    assert res.exit_code == 5, res
    assert "circuit breaker open" in res.stdout
    assert "external: cannot start: working directory gone does not exist" in res.stdout
    assert [e["signal"] for e in p.rotation_ends()] == ["REFUSED"] * 3
    assert p.counts() == {"PROMPT.md": 0}


@posix_signals
@pytest.mark.slow
def test_ctrl_c_during_a_check_records_error_and_kills_the_check(git_project: Project) -> None:
    p = git_project
    marker, pidfile = p.root.parent / "started", p.root.parent / "pid"
    p.write(
        {
            # at the start (the tests' bar, before the agent wrote x.txt) it passes at once
            "PROMPT.md": "---\ntest_command: 'test -e x.txt || exit 0; "
            f"echo $$ > {pidfile}; touch {marker}; sleep 60'\n---\n# goal\n"
        }
    )
    script = p.script({"*": [{"write": {"x.txt": "1\n"}, "signal": "DONE"}]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", script],
        cwd=p.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    # Held by identity (pid and start time): on a busy machine a pid can be reused in seconds.
    shell = psutil.Process(int(pidfile.read_text()))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    row = p.state()["specs"][0]
    assert (row["last_status"], row["done_count"]) == ("ERROR", 0)
    deadline = time.monotonic() + 10
    while _alive(shell):
        assert time.monotonic() < deadline, "the check's shell survived Ctrl-C"
        time.sleep(0.05)


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_semantic_judge_is_another_agent_of_the_pool_than_the_coder(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n"
            "---\n# goal\n",
        }
    )
    commands = []
    for name in ("alpha", "beta"):
        script = p.root.parent / f"{name}.json"
        script.write_text(json.dumps({"*": DONE, "JUDGE": f"NOT_VERIFIED: judged by {name}"}))
        commands.append([sys.executable, str(FAKES / "scripted_agent.py"), str(script)])
    agents = [{"name": n, "command": c} for n, c in zip(("alpha", "beta"), commands, strict=True)]
    p.write({"ralph.yaml": json.dumps({"agents": agents})})
    res = p.run("run", "-n", "2")
    assert res.exit_code == 3, res
    ends = p.rotation_ends()
    coders = [e["agent"] for e in ends]
    assert coders == ["alpha", "beta"]  # round robin
    notes = [e["note"].split(" (what a person can do: ")[0] for e in ends]
    assert notes == [
        "DONE refused: semantic: NOT_VERIFIED: judged by beta",
        "DONE refused: semantic: NOT_VERIFIED: judged by alpha",
    ]
    assert all(
        e["note"].endswith("let the agent fix the work (its next prompt says why))") for e in ends
    )


def test_checks_write_in_the_clean_room_never_in_the_tree(git_project: Project) -> None:
    p = git_project
    counter = p.root.parent / "n"
    # every run of the check writes a new file where it runs, and fails if the last one's is
    # still there: each run starts in a room synced afresh, and the tree never sees it
    cmd = (
        f"test ! -e out.txt && n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); "
        f"echo $n > {counter}; echo $n > out.txt"
    )
    p.write({"PROMPT.md": front(test_command=f"'{cmd}'") + "# goal\n"})
    res = p.run("run", *p.fake({"*": DONE}), "-n", "4")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert not (p.root / "out.txt").exists()
    assert int(counter.read_text()) >= 2  # the second run found no leftover of the first
