"""What a new user met in the second hour (issue 28's snags), each through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from tests.conftest import Project

BROKEN = "---\ntest_command: [unclosed\n---\n# a\n"


def test_status_shows_a_spec_with_broken_front_matter_as_the_error(project: Project) -> None:
    project.write({"specs/a.spec.md": BROKEN, "specs/b.spec.md": "# b\n"})
    res = project.run("status")
    assert res.exit_code == 0, res
    rows = {line.split()[0]: line for line in res.stdout.splitlines() if line.startswith("specs/")}
    assert "ERROR: front matter" in rows["specs/a.spec.md"]
    assert "ERROR" not in rows["specs/b.spec.md"]  # the honest spec reads as ever
    errors = [line for line in res.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith("error: specs/a.spec.md: "), res.stdout
    assert "`ralph run` refuses to start until then" in errors[0]
    data = json.loads(project.run("status", "--json").stdout)
    specs = {s["path"]: s for s in data["specs"]}
    assert specs["specs/a.spec.md"]["error"].startswith("specs/a.spec.md: ")
    assert specs["specs/a.spec.md"]["needs_work"] is True
    assert "error" not in specs["specs/b.spec.md"]
    run = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--headless")
    assert run.exit_code == 1  # the same spec `ralph run` refuses, by the same words
    assert errors[0].removeprefix("error: ").split(" (")[0] in run.stderr


def test_a_fresh_clone_at_a_path_used_before_starts_afresh_and_says_why(
    project: Project,
) -> None:
    project.git("init", "-q", "-b", "main")
    project.write({"specs/a.spec.md": "# a\n", ".gitignore": ".ralph/\n"})
    project.commit_all()
    done = project.fake({"*": [{"signal": "DONE"}]})
    assert project.run("run", *done, "--headless").exit_code == 0
    again = project.run("run", *done, "--headless", "-n", "1")  # the same checkout: kept
    assert "another checkout" not in again.stdout + again.stderr
    assert json.loads(project.run("status", "--json").stdout)["iteration"] >= 3
    # the person deletes the project and clones it again at the same path
    origin = project.root.parent / "origin"
    shutil.move(project.root, origin)
    subprocess.run(["git", "clone", "-q", str(origin), str(project.root)], check=True)
    status = project.run("status")
    assert "belongs to another checkout of the project" in status.stdout, status.stdout
    assert json.loads(project.run("status", "--json").stdout)["iteration"] == 0
    res = project.run("run", *done, "--headless", "-n", "1")
    assert "belonged to another checkout of the project" in res.stdout + res.stderr
    assert project.state()["iteration"] == 1  # numbered afresh
    later = project.run("status")
    assert "another checkout" not in later.stdout  # claimed: this checkout's store now


def test_a_pipe_where_the_checkout_id_is_hangs_nothing(project: Project) -> None:
    """The checkout's id (.git/ralph-id) is read through the one reader: a named pipe there
    is no id, never a wait (an unsandboxed agent can write the git folder)."""
    project.git("init", "-q", "-b", "main")
    project.write({"specs/a.spec.md": "# a\n", ".gitignore": ".ralph/\n"})
    project.commit_all()
    done = project.fake({"*": [{"signal": "DONE"}]})
    assert project.run("run", *done, "--headless").exit_code == 0
    ident = project.root / ".git" / "ralph-id"
    ident.unlink()
    os.mkfifo(ident)
    status = project.run_subprocess("status")  # a process: a hang would meet its timeout
    assert status.exit_code == 0, status
    assert "another checkout" in status.stdout  # no id read: not this checkout's record


def test_history_of_a_lanes_run_has_a_lane_column_and_lists_rotations_in_order(
    project: Project,
) -> None:
    from ralph.rules.counts.lanes import lane_name
    from tests.e2e.test_lanes import lanes_project

    specs = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
    lanes_project(project, specs)
    steps = {p: [{"write": {f"{p[6]}.txt": "x\n"}, "signal": "DONE"}] for p in specs}
    assert project.run("run", *project.fake(steps), "--parallel", "2").exit_code == 0
    rows = json.loads(project.run("history", "--json").stdout)["rotations"]
    numbers = [r["number"] for r in rows]
    assert numbers == sorted(numbers) and len(numbers) >= 6
    for r in rows:
        expected = None if r["mode"] == "VERIFY" else lane_name(r["spec"])
        assert r["lane"] == expected, r
    table = project.run("history").stdout.splitlines()
    assert table[0].split()[:5] == ["#", "started", "spec", "lane", "agent"]
    assert any(lane_name("specs/a.spec.md") in line for line in table[1:])


def test_run_says_in_one_line_when_a_shared_test_command_refuses_a_done(
    project: Project,
) -> None:
    command = "test ! -e broken-by-b"  # the whole suite, as both specs name it
    front = f"---\ntest_command: {command}\n---\n"
    project.write({"specs/a.spec.md": front + "# a\n", "specs/b.spec.md": front + "# b\n"})
    steps = {
        "specs/a.spec.md": [{"signal": "DONE"}],
        "specs/b.spec.md": [
            {"write": {"broken-by-b": "x\n"}, "signal": "CONTINUE"},
            {"signal": "DONE"},
        ],
    }
    res = project.run("run", *project.fake(steps), "--headless", "-n", "8")
    assert res.stdout.count("DONE refused") >= 2, res.stdout
    lines = [line for line in res.stdout.splitlines() if "which is also the test command" in line]
    assert len(lines) == 1, res.stdout  # said once, however often it refuses
    assert f"specs/b.spec.md: its DONE was refused by `{command}`" in lines[0]
    assert "of specs/a.spec.md" in lines[0] and "ralph.yaml's test_command" in lines[0]


def test_a_spec_with_its_own_tests_hears_nothing_of_other_specs(project: Project) -> None:
    project.write(
        {
            "specs/a.spec.md": "---\ntest_command: test ! -e broken-by-b\n---\n# a\n",
            "specs/b.spec.md": "---\ntest_command: 'true'\n---\n# b\n",
        }
    )
    steps = {
        "specs/a.spec.md": [{"signal": "DONE"}],
        "specs/b.spec.md": [
            {"write": {"broken-by-b": "x\n"}, "signal": "CONTINUE"},
            {"signal": "DONE"},
        ],
    }
    res = project.run("run", *project.fake(steps), "--headless", "-n", "8")
    assert "DONE refused" in res.stdout  # a's, by its own tests
    assert "which is also the test command" not in res.stdout
