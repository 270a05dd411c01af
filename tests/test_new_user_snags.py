"""What a new user met in the second hour (issue 28's snags), each through the real CLI."""

from __future__ import annotations

import json
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
