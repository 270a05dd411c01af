"""The command line, end to end: init, run, status, reset, bad input and exit codes.

Everything goes through the real CLI (in-process with CliRunner, or as a real process where
signals and a second live process matter) against a real project folder and the scripted agent
(tests/fakes/scripted_agent.py: in-process through `Project.fake`, as a real program where the
process matters). Nothing of ralph's own is mocked.
"""

from __future__ import annotations

import hashlib
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import psutil
import pytest

from ralph import __version__
from ralph.store.disk.workspace import GUARDRAILS_TEMPLATE
from tests.conftest import Project, Result
from tests.platforms import posix_signals
from tests.test_cli import assert_one_error, spec_row, status_json

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


CONTINUE: list[dict[str, Any]] = [{"signal": "CONTINUE"}]


CONTRACT_KEYS = {"iteration", "max_iterations", "running", "complete", "specs"}


SPEC_KEYS = {"path", "done_count", "last_status", "modified_files", "last_hash", "needs_work"}


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verified(project: Project, spec: str = "PROMPT.md") -> Result:
    """A run that brings a single spec to 3/3 with a DONE-only agent."""
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.counts() == {spec: 3}
    return res


def test_version_as_a_real_process(project: Project) -> None:
    res = project.run_subprocess("--version")
    assert res.exit_code == 0, res
    assert res.stdout.strip() == f"ralph {__version__}"
    assert res.stderr == ""


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("init", ["--force", "--project"]),
        (
            "run",
            [
                "--agent",
                "--agent-command",
                "--max-iterations",
                "--timeout",
                "--idle-timeout",
                "--rotation",
                "--max-cost",
                "--max-tokens",
                "--plain",
                "--no-color",
                "--verbose",
                "--project",
            ],
        ),
        ("status", ["--json", "--project"]),
        ("reset", ["--handoffs", "--history", "--guardrails", "--all", "--project"]),
    ],
)
def test_each_command_has_help(project: Project, command: str, options: list[str]) -> None:
    res = project.run(command, "--help")
    assert res.exit_code == 0, res
    assert f"ralph {command}" in res.stdout
    for option in options:
        assert option in res.stdout, (option, res.stdout)
    assert not (project.root / ".ralph").exists()  # --help does nothing else


def test_init_refuses_when_state_exists(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    state_file = project.root / ".ralph" / "state.json"
    before = state_file.read_bytes()
    res = project.run("init")
    line = assert_one_error(res, ".ralph/", "already exists")
    assert line.startswith("error: ")
    hints = [x for x in res.stderr.splitlines() if x.startswith("hint:")]
    assert len(hints) == 1 and "--force" in hints[0], res
    assert len(res.stderr.splitlines()) == 2, res
    assert state_file.read_bytes() == before


def test_init_force_recreates_the_state_folder(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    ralph = project.root / ".ralph"
    (ralph / "guardrails.md").write_text("learned something\n")
    assert any((ralph / "history").iterdir())
    res = project.run("init", "--force")
    assert res.exit_code == 0, res
    assert project.state()["specs"] == []
    assert project.state()["iteration"] == 0
    assert (ralph / "guardrails.md").read_text() == GUARDRAILS_TEMPLATE
    assert list((ralph / "history").iterdir()) == []
    assert list((ralph / "handoffs").iterdir()) == []
    assert spec_row(status_json(project), "PROMPT.md")["done_count"] == 0


def test_status_json_after_a_run_has_the_contract_keys(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    agent = project.fake({"*": DONE})
    res = project.run("run", *agent, "--max-iterations", "4")
    assert res.exit_code == 3, res
    data = status_json(project)
    assert data.keys() >= CONTRACT_KEYS
    assert data["iteration"] == 4
    assert data["max_iterations"] == 4
    assert data["running"] is False
    assert data["complete"] is False
    assert [s["path"] for s in data["specs"]] == ["PROMPT.md", "specs/api.spec.md"]
    for row in data["specs"]:
        assert row.keys() >= SPEC_KEYS, row
        assert row["last_status"] == "DONE"
        assert row["modified_files"] is False
        assert row["last_hash"] == sha256(project.root / row["path"])
        assert row["needs_work"] is (row["done_count"] < 3)
    assert sum(s["done_count"] for s in data["specs"]) == 4
    assert any(s["needs_work"] for s in data["specs"])
    # status agrees with state.json
    assert {s["path"]: s["done_count"] for s in data["specs"]} == project.counts()


def test_status_json_when_complete(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    data = status_json(project)
    assert data["complete"] is True
    assert data["running"] is False
    assert data["iteration"] == 4  # three rotations and the final verification
    assert data["final_verification"]["passed"] is True
    row = spec_row(data, "PROMPT.md")
    assert row["done_count"] == 3
    assert row["needs_work"] is False
    assert row["last_status"] == "DONE"


def test_status_shows_a_spec_added_after_the_run(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    project.write({"specs/new.spec.md": "# new\n"})
    data = status_json(project)
    assert data["complete"] is False
    new = spec_row(data, "specs/new.spec.md")
    assert new["done_count"] == 0
    assert new["last_status"] is None
    assert new["last_hash"] is None
    assert new["needs_work"] is True
    assert spec_row(data, "PROMPT.md")["done_count"] == 3
    # status is read-only: the saved matrix does not change
    assert project.counts() == {"PROMPT.md": 3}


def test_status_shows_a_modified_spec_back_at_zero(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    project.write({"PROMPT.md": "# goal, now with more requirements\n"})
    data = status_json(project)
    row = spec_row(data, "PROMPT.md")
    assert row["done_count"] == 0
    assert row["needs_work"] is True
    assert data["complete"] is False


def test_status_plain_lists_each_spec_without_ansi(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    agent = project.fake({"*": DONE})
    assert project.run("run", *agent, "-n", "4").exit_code == 3
    counts = project.counts()
    res = project.run("status")
    assert res.exit_code == 0, res
    assert not ANSI.search(res.stdout), repr(res.stdout)
    for path, count in counts.items():
        line = next(x for x in res.stdout.splitlines() if x.startswith(path + " "))
        assert f"{count}/3" in line, line


def test_status_plain_as_a_real_process_has_no_ansi(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    res = project.run_subprocess("status")
    assert res.exit_code == 0, res
    assert not ANSI.search(res.stdout), repr(res.stdout)
    assert re.search(r"^PROMPT\.md\s+3/3", res.stdout, re.MULTILINE), res.stdout


def test_run_without_specs_says_where_specs_are_looked_for(project: Project) -> None:
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "no specs")
    assert "PROMPT.md" in res.stderr
    assert "specs/" in res.stderr
    assert project.calls() == []


def wait_for(predicate: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@contextmanager
def live_run(project: Project, steps: list[dict[str, Any]]) -> Iterator[subprocess.Popen[bytes]]:
    """`ralph run` as a real process, its agent started and sleeping; always cleaned up."""
    agent = project.script({"*": steps})
    log = project.root.parent / "live-run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ralph", "run", "--agent-command", agent],
            cwd=project.root,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        run_json = project.root / ".ralph" / "run.json"
        started = wait_for(lambda: run_json.exists() and len(project.calls()) == 1)
        assert started, log.read_text()
        yield proc
    finally:
        if proc.poll() is None:  # the test failed midway: take the agent down too
            try:
                tree = psutil.Process(proc.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                tree = []
            proc.kill()
            for child in tree:
                with suppress(psutil.NoSuchProcess):
                    child.kill()
        proc.wait(timeout=10)


@posix_signals
@pytest.mark.slow
def test_a_live_run_is_seen_and_protected(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    with live_run(project, [{"sleep": 60, "signal": "DONE"}]) as proc:
        # status sees it
        data = status_json(project)
        assert data["running"] is True
        assert data["run"]["pid"] == proc.pid
        plain = project.run("status")
        assert plain.exit_code == 0, plain
        assert "run live" in plain.stdout

        run_json = project.root / ".ralph" / "run.json"
        run_before = run_json.read_bytes()
        state_before = (project.root / ".ralph" / "state.json").read_bytes()

        # a second run is refused and starts no agent
        second = project.run("run", "--agent-command", project.script({"*": DONE}))
        assert_one_error(second, "another ralph run is live")
        assert f"pid {proc.pid}" in second.stderr
        # the way out works from this terminal: ralph cancel, not Ctrl-C in another one
        assert "ralph cancel" in second.stderr and "Ctrl-C" not in second.stderr
        assert len(project.calls()) == 1

        # reset and init --force are refused too
        assert_one_error(project.run("reset", "--all"), "another ralph run is live")
        assert_one_error(project.run("init", "--force"), "another ralph run is live")

        # none of the refused commands touched the live run's files
        assert run_json.read_bytes() == run_before
        assert (project.root / ".ralph" / "state.json").read_bytes() == state_before
        assert (project.root / ".ralph" / "handoffs").is_dir()
        assert proc.poll() is None
        agents = psutil.Process(proc.pid).children(recursive=True)
        assert agents, "the agent process should be running"

        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 130
        # the agent's process tree does not outlive the run
        _, alive = psutil.wait_procs(agents, timeout=5)
        assert alive == []

    assert len(project.calls()) == 1
    assert not (project.root / ".ralph" / "run.json").exists()
    after = status_json(project)
    assert after["running"] is False
    assert "no run" in project.run("status").stdout
    assert spec_row(after, "PROMPT.md")["last_status"] == "ERROR"
    assert after["iteration"] == 1


@pytest.mark.slow
def test_sigterm_stops_a_live_run_with_130(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    with live_run(project, [{"sleep": 60, "signal": "DONE"}]) as proc:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 130
    assert status_json(project)["running"] is False
    # the lock is free again: a new run goes ahead
    res = project.run("run", "--agent-command", project.script({"*": DONE}), "-n", "1")
    assert res.exit_code == 3, res


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait()
    return proc.pid


def test_a_stale_run_json_does_not_block_a_run(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    ralph = project.root / ".ralph"
    ralph.mkdir()
    pid = dead_pid()
    (ralph / "run.json").write_text(json.dumps({"pid": pid, "started_at": time.time() - 60}))
    assert status_json(project)["running"] is False
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.counts() == {"PROMPT.md": 3}
    assert len(project.calls()) == 3
    assert not (ralph / "run.json").exists()


def test_a_stale_run_json_and_unlocked_lock_file_do_not_block(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    ralph = project.root / ".ralph"
    ralph.mkdir()
    (ralph / "run.lock").write_text("")
    (ralph / "run.json").write_text(json.dumps({"pid": dead_pid(), "started_at": 0}))
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.counts() == {"PROMPT.md": 3}
    assert project.run("reset").exit_code == 0


def run_with_memory(project: Project) -> dict[str, Any]:
    """A run that leaves counters, handoffs, history and guardrails behind."""
    project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    agent = project.fake(
        {
            "*": [
                {
                    "write": {
                        "work.txt": "x",
                        ".ralph/handoffs/custom.md": "handoff note\n",
                    },
                    "signal": "CONTINUE",
                },
                {"signal": "DONE"},
            ]
        }
    )
    res = project.run("run", *agent, "-n", "4")
    assert res.exit_code == 3, res
    (project.root / ".ralph" / "guardrails.md").write_text("# Guardrails\n\nuse make test\n")
    return project.state()


def test_reset_zeroes_counters_and_iteration_and_keeps_spec_state(project: Project) -> None:
    before = run_with_memory(project)
    assert before["iteration"] == 4
    assert any(s["done_count"] > 0 for s in before["specs"])
    res = project.run("reset")
    assert res.exit_code == 0, res
    after = project.state()
    assert after["iteration"] == 0
    assert after["last_rotation"] == 4  # rotation numbers go on: one number, one rotation
    assert [s["path"] for s in after["specs"]] == [s["path"] for s in before["specs"]]
    for old, new in zip(before["specs"], after["specs"], strict=True):
        assert new["done_count"] == 0
        for key in ("last_status", "last_hash", "modified_files"):
            assert new[key] == old[key], key
    data = status_json(project)
    assert data["iteration"] == 0
    assert all(s["done_count"] == 0 and s["needs_work"] for s in data["specs"])


def memory_files(project: Project) -> dict[str, list[str]]:
    ralph = project.root / ".ralph"
    return {
        "handoffs": sorted(p.name for p in (ralph / "handoffs").iterdir()),
        "history": sorted(
            p.relative_to(ralph / "history").as_posix() for p in (ralph / "history").rglob("*")
        ),
        "guardrails": [(ralph / "guardrails.md").read_text()],
    }


@pytest.mark.parametrize(
    ("flags", "cleared"),
    [
        ((), set()),
        (("--handoffs",), {"handoffs"}),
        (("--history",), {"history"}),
        (("--guardrails",), {"guardrails"}),
        (("--handoffs", "--guardrails"), {"handoffs", "guardrails"}),
        (("--all",), {"handoffs", "history", "guardrails"}),
    ],
)
def test_reset_clears_exactly_what_it_is_told(
    project: Project, flags: tuple[str, ...], cleared: set[str]
) -> None:
    run_with_memory(project)
    before = memory_files(project)
    assert before["handoffs"]
    assert before["history"]
    assert before["guardrails"] != [GUARDRAILS_TEMPLATE]
    res = project.run("reset", *flags)
    assert res.exit_code == 0, res
    after = memory_files(project)
    empty = {"handoffs": [], "history": [], "guardrails": [GUARDRAILS_TEMPLATE]}
    for key in ("handoffs", "history", "guardrails"):
        assert after[key] == (empty[key] if key in cleared else before[key]), key
    ralph = project.root / ".ralph"
    assert (ralph / "handoffs").is_dir()
    assert (ralph / "history").is_dir()
    assert project.state()["iteration"] == 0
    assert not (ralph / "run.json").exists()


def test_reset_keeps_the_users_work(project: Project) -> None:
    run_with_memory(project)
    res = project.run("reset", "--all")
    assert res.exit_code == 0, res
    assert (project.root / "work.txt").read_text() == "x"
    assert (project.root / "PROMPT.md").read_text() == "# goal\n"
    assert (project.root / "specs" / "api.spec.md").read_text() == "# api\n"


def test_reset_all_keeps_specs_under_the_state_folder(project: Project) -> None:
    project.write({".ralph/specs/inner.spec.md": "# inner\n"})
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.counts() == {".ralph/specs/inner.spec.md": 3}
    assert project.run("reset", "--all").exit_code == 0
    assert (project.root / ".ralph" / "specs" / "inner.spec.md").read_text() == "# inner\n"
    assert project.counts() == {".ralph/specs/inner.spec.md": 0}


def test_reset_then_run_starts_from_zero(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    verified(project)
    numbered = project.state()["iteration"]
    assert project.run("reset").exit_code == 0
    agent = project.fake({"*": DONE})
    res = project.run("run", *agent, "-n", "1")
    assert res.exit_code == 3, res
    assert project.counts() == {"PROMPT.md": 1}
    assert project.state()["iteration"] == 1
    assert project.state()["last_rotation"] == numbered + 1  # numbers never start over


def assert_bad_config(project: Project, yaml_text: str, *needles: str) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": yaml_text})
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "ralph.yaml", *needles)
    assert project.calls() == []
    assert not (project.root / ".ralph" / "state.json").exists()


def test_invalid_yaml_names_the_file_and_line(project: Project) -> None:
    assert_bad_config(project, "max_iterations: 3\nagent:\n  command: [unclosed\n", "line ")
    res = project.run("run", *project.fake({"*": DONE}))
    line = assert_one_error(res)
    match = re.search(r"line (\d+)", line)
    assert match is not None and 3 <= int(match.group(1)) <= 4, line


def test_invalid_yaml_tab_indent_names_line_2(project: Project) -> None:
    assert_bad_config(project, "max_iterations: 3\n\tagent: x\n", "line 2")


def test_invalid_yaml_mapping_in_mapping_names_line_2(project: Project) -> None:
    assert_bad_config(project, "max_iterations: 3\nagent: command: x\n", "line 2")


def test_invalid_yaml_unclosed_quote_names_its_line(project: Project) -> None:
    assert_bad_config(project, 'agent:\n  command: "abc\nmax_iterations: 3\n', "line 2")


def test_config_that_is_not_utf8(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    (project.root / "ralph.yaml").write_bytes("agent: caf\xe9\n".encode("latin-1"))
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "ralph.yaml")
    assert "UTF-8" in res.stderr
    assert project.calls() == []


def test_unknown_config_key_is_named(project: Project) -> None:
    assert_bad_config(project, "agent:\n  tiemout: 30\n", "agent.tiemout")


def test_unknown_top_level_key_is_named(project: Project) -> None:
    assert_bad_config(project, "max_iteration: 3\n", "max_iteration")


def test_wrong_type_is_named(project: Project) -> None:
    assert_bad_config(project, "max_iterations: many\n", "max_iterations")


def test_zero_max_iterations_in_config_is_refused(project: Project) -> None:
    assert_bad_config(project, "max_iterations: 0\n", "max_iterations")


def test_boolean_max_iterations_is_refused(project: Project) -> None:
    assert_bad_config(project, "max_iterations: yes\n", "max_iterations")


@pytest.mark.parametrize("command", ['""', "[]", "'   '"])
def test_empty_agent_command_in_config(project: Project, command: str) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": f"agent: {{command: {command}}}\n"})
    res = project.run("run")
    assert_one_error(res, "ralph.yaml", "agent.command")
    assert not (project.root / ".ralph" / "state.json").exists()


def test_top_level_yaml_list_is_refused(project: Project) -> None:
    assert_bad_config(project, "- a\n- b\n", "mapping")


def test_empty_ralph_yaml_means_defaults(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "# nothing yet\n"})
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.state()["max_iterations"] == 20


def test_corrupt_state_is_refused_and_kept_byte_for_byte(project: Project) -> None:
    raw = b'{"schema_version": 1, "iteration": 3, "specs": [\n'
    project.write({"PROMPT.md": "# goal\n"})
    state_file = project.root / ".ralph" / "state.json"
    state_file.parent.mkdir()
    state_file.write_bytes(raw)
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "state.json")
    assert state_file.read_bytes() == raw
    assert project.calls() == []
    assert not (project.root / ".ralph" / "run.json").exists()
    # status refuses it the same way, and still leaves it alone
    assert_one_error(project.run("status", "--json"), "state.json")
    assert state_file.read_bytes() == raw


def test_state_with_a_wrong_value_is_refused_and_kept(project: Project) -> None:
    raw = json.dumps(
        {"schema_version": 1, "iteration": 0, "specs": [{"path": "PROMPT.md", "done_count": 7}]}
    )
    project.write({"PROMPT.md": "# goal\n", ".ralph/state.json": raw})
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "state.json", "done_count")
    assert (project.root / ".ralph" / "state.json").read_text() == raw
    assert project.calls() == []


def test_state_from_a_newer_ralph_is_refused(project: Project) -> None:
    raw = json.dumps({"schema_version": 99, "iteration": 1, "specs": []})
    project.write({"PROMPT.md": "# goal\n", ".ralph/state.json": raw})
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "newer ralph")
    assert (project.root / ".ralph" / "state.json").read_text() == raw
    assert project.calls() == []
    assert_one_error(project.run("status"), "newer ralph")
    assert_one_error(project.run("reset"), "newer ralph")
    assert (project.root / ".ralph" / "state.json").read_text() == raw


def test_a_spec_that_is_not_utf8_is_named(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    bad = project.root / "specs" / "latin1.spec.md"
    bad.parent.mkdir()
    bad.write_bytes("caf\xe9\n".encode("latin-1"))
    res = project.run("run", *project.fake({"*": DONE}))
    assert_one_error(res, "specs/latin1.spec.md", "UTF-8")
    assert project.calls() == []
    assert_one_error(project.run("status"), "specs/latin1.spec.md")


def test_a_missing_agent_command(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent-command", "no-such-agent-xyz --flag")
    assert_one_error(res, "agent command not found", "no-such-agent-xyz")
    assert not (project.root / ".ralph" / "state.json").exists()


def test_a_missing_agent_command_from_config(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "agent:\n  command: ./nope.sh\n"})
    assert_one_error(project.run("run"), "agent command not found")


def test_no_agent_configured(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run")
    assert_one_error(res, "no agent configured")
    hints = [x for x in res.stderr.splitlines() if x.startswith("hint:")]
    assert len(hints) == 1 and "--agent 'cmd:CMD'" in hints[0], res


def test_empty_agent_command_flag(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    assert_one_error(project.run("run", "--agent-command", ""), "agent command is empty")


def test_agent_command_with_unbalanced_quote(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run_subprocess("run", "--agent-command", "my-agent 'unclosed")
    assert_one_error(res, "my-agent 'unclosed")


def test_config_agent_command_with_unbalanced_quote(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": 'agent:\n  command: "a \'b"\n'})
    res = project.run_subprocess("run")
    assert_one_error(res, "agent.command")


def test_a_ralph_file_instead_of_folder(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", ".ralph": "not a folder\n"})
    res = project.run_subprocess("run", "--agent-command", project.script({"*": DONE}))
    assert_one_error(res, ".ralph")
    assert (project.root / ".ralph").read_text() == "not a folder\n"


def test_init_force_over_a_ralph_file(project: Project) -> None:
    project.write({".ralph": "not a folder\n"})
    res = project.run_subprocess("init", "--force")
    assert "Traceback" not in res.stderr, res
    assert res.exit_code in (0, 1), res


def test_zero_max_iterations_flag_is_a_usage_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": DONE}), "--max-iterations", "0")
    assert res.exit_code == 2, res
    assert "Traceback" not in res.stderr
    assert "--max-iterations" in res.stderr
    assert project.calls() == []
    assert not (project.root / ".ralph").exists()


def test_non_numeric_max_iterations_flag_is_a_usage_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent-command", "x", "-n", "lots")
    assert res.exit_code == 2, res
    assert "Traceback" not in res.stderr


def test_unknown_built_in_agent(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent", "nonsense")
    assert_one_error(res, "unknown agent", "nonsense")
    assert not (project.root / ".ralph").exists()


def test_unknown_agent_name_in_config(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "agent: nonsense\n"})
    assert_one_error(project.run("run"), "unknown agent", "nonsense")


def test_config_max_iterations_is_used(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "max_iterations: 2\n"})
    res = project.run("run", *project.fake({"*": CONTINUE}))
    assert res.exit_code == 3, res
    assert len(project.calls()) == 2
    assert project.state()["iteration"] == 2
    assert project.state()["max_iterations"] == 2


def test_max_iterations_flag_overrides_config(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "max_iterations: 2\n"})
    res = project.run("run", *project.fake({"*": CONTINUE}), "-n", "1")
    assert res.exit_code == 3, res
    assert len(project.calls()) == 1


def test_max_iterations_flag_can_raise_the_config_limit(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "max_iterations: 1\n"})
    agent = project.fake({"*": CONTINUE})
    res = project.run("run", *agent, "--max-iterations", "3")
    assert res.exit_code == 3, res
    assert len(project.calls()) == 3


def test_max_iterations_caps_this_run_and_iteration_keeps_counting(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": CONTINUE})
    assert project.run("run", *agent, "-n", "2").exit_code == 3
    assert project.run("run", *agent, "-n", "2").exit_code == 3
    assert len(project.calls()) == 4
    data = status_json(project)
    assert data["iteration"] == 4
    assert data["max_iterations"] == 2  # the last run's budget, not 4


def test_config_agent_command_is_used(project: Project) -> None:
    agent = project.script({"*": DONE})
    project.write(
        {"PROMPT.md": "# goal\n", "ralph.yaml": f"agent:\n  command: {json.dumps(agent)}\n"}
    )
    res = project.run("run")
    assert res.exit_code == 0, res
    assert len(project.calls()) == 3
    assert project.counts() == {"PROMPT.md": 3}


def test_config_agent_command_as_a_list(project: Project) -> None:
    agent = project.script({"*": DONE})
    argv = agent.split(" ")
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": json.dumps({"agent": {"command": argv}})})
    res = project.run("run")
    assert res.exit_code == 0, res
    assert len(project.calls()) == 3


def test_agent_command_flag_overrides_config(project: Project) -> None:
    used = project.fake({"*": DONE})
    project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": "agent:\n  command: no-such-agent-xyz\n",
        }
    )
    res = project.run("run", *used)
    assert res.exit_code == 0, res
    assert len(project.calls()) == 3


def test_agent_flag_overrides_config_command(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "agent:\n  command: no-such-agent-xyz\n"})
    res = project.run("run", "--agent", "nonsense")
    assert_one_error(res, "unknown agent")


def test_config_agent_env_reaches_the_agent(project: Project, tmp_path: Path) -> None:
    out = tmp_path / "env.txt"
    script = tmp_path / "agent.py"
    script.write_text(
        "import os, pathlib, sys\n"
        "sys.stdin.read()\n"
        f"pathlib.Path({str(out)!r}).write_text(os.environ['TEAM_VALUE'])\n"
        "print('<ralph>DONE</ralph>')\n"
    )
    project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": json.dumps(
                {"agent": {"command": [sys.executable, str(script)], "env": {"TEAM_VALUE": "42"}}}
            ),
        }
    )
    res = project.run("run", "-n", "1")
    assert res.exit_code == 3, res
    assert out.read_text() == "42"


def test_run_exit_0_when_verified_and_output_is_plain(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = verified(project)
    assert not ANSI.search(res.stdout)
    assert "Traceback" not in res.stderr
    assert len(project.calls()) == 3
    # a second run on a verified project has nothing to do
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert len(project.calls()) == 3


@pytest.mark.parametrize(("signal_", "code"), [("STUCK", 5), ("QUESTION", 5), ("GUTTER", 5)])
def test_run_stops_for_a_human(project: Project, signal_: str, code: int) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": [{"signal": signal_}]}))
    assert res.exit_code == code, res
    assert len(project.calls()) == 1


def test_run_reports_max_iterations_with_3(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": CONTINUE}), "-n", "3")
    assert res.exit_code == 3, res
    assert len(project.calls()) == 3
    data = status_json(project)
    assert spec_row(data, "PROMPT.md")["last_status"] == "CONTINUE"
    assert spec_row(data, "PROMPT.md")["needs_work"] is True


def test_run_project_option(project: Project, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "PROMPT.md").write_text("# goal\n")
    res = project.run("run", "-C", str(other), *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert json.loads((other / ".ralph" / "state.json").read_text())["specs"][0]["done_count"] == 3
    assert not (project.root / ".ralph").exists()
    assert {c["cwd"] for c in project.calls()} == {str(other)}


def test_run_as_a_real_process_prints_plain_lines(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run_subprocess("run", "--agent-command", project.script({"*": DONE}))
    assert res.exit_code == 0, res
    assert not ANSI.search(res.stdout + res.stderr), repr(res.stdout)
    assert "Traceback" not in res.stderr
    assert project.counts() == {"PROMPT.md": 3}
