"""The CI fan-out recipe (docs/how-to/ci-lanes.md): `ralph plan --json` as a job matrix, a
job per spec running `ralph run --spec PATH` on its lane branch and pushing it, a last job merging
the pushed lanes (docs/ci/merge-lanes.sh) and verifying on the merged tree; all against a local
bare repository standing in for the remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Project

DOCS = Path(__file__).parents[2] / "docs"


MERGE_LANES = DOCS / "ci" / "merge-lanes.sh"


SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]


def sh(cwd: Path, *args: str) -> str:
    out = subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True)
    return out.stdout


def test_plan_lists_the_specs_that_need_work_as_a_job_matrix(git_project: Project) -> None:
    git_project.write(SPECS)
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd, "--spec", "specs/a.spec.md").exit_code == 0
    res = git_project.run("plan", "--json")
    assert res.exit_code == 0, res
    data = json.loads(res.stdout)
    assert [item["spec"] for item in data["include"]] == ["specs/b.spec.md"]
    assert data["include"][0]["branch"].startswith("ralph/b-")
    text = git_project.run("plan")
    assert "specs/b.spec.md  0/3  branch ralph/b-" in text.stdout


def test_plan_with_nothing_to_do(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "# a\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    assert json.loads(git_project.run("plan", "--json").stdout) == {
        "schema_version": 1,
        "include": [],
    }
    assert "nothing to plan" in git_project.run("plan").stdout


@pytest.mark.slow
def test_lanes_pushed_to_a_bare_repository_merge_and_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    seed = tmp_path / "seed"
    sh(tmp_path, "clone", "-q", str(remote), str(seed))
    for name, text in {**SPECS, ".gitignore": ".ralph/\n"}.items():
        (seed / name).parent.mkdir(parents=True, exist_ok=True)
        (seed / name).write_text(text)
    sh(seed, "add", "-A")
    sh(seed, "commit", "-qm", "specs")
    sh(seed, "push", "-q", "origin", "HEAD:main")
    plan = Project(seed, monkeypatch).run("plan", "--json")
    matrix = json.loads(plan.stdout)["include"]
    assert len(matrix) == 2
    for job, item in enumerate(matrix):  # one CI job per spec, each on a fresh checkout
        clone = tmp_path / f"job{job}"
        sh(tmp_path, "clone", "-q", str(remote), str(clone))
        sh(clone, "switch", "-q", "-c", item["branch"])
        lane = Project(clone, monkeypatch)
        name = Path(item["spec"]).name.split(".")[0]
        cmd = lane.script({"*": [{"write": {f"{name}.txt": "done\n"}, "signal": "DONE"}]})
        res = lane.run("run", "--agent-command", cmd, "--headless", "--spec", item["spec"])
        assert res.exit_code == 0, res.stdout + res.stderr
        sh(clone, "add", "-A")
        sh(clone, "commit", "-qm", f"ralph: {item['spec']}")
        sh(clone, "push", "-q", "origin", f"HEAD:refs/heads/{item['branch']}")
    final = tmp_path / "final"
    sh(tmp_path, "clone", "-q", str(remote), str(final))
    env_git = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env_git |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for key, value in env_git.items():
        monkeypatch.setenv(key, value)
    out = subprocess.run(
        ["sh", str(MERGE_LANES)], cwd=final, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("merged origin/ralph/") == 2
    assert (final / "a.txt").exists() and (final / "b.txt").exists()
    project = Project(final, monkeypatch)
    cmd = project.script({"*": [{"signal": "DONE"}]})
    res = project.run("run", "--agent-command", cmd, "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert project.counts() == dict.fromkeys(SPECS, 3)  # every spec reviewed on the merged tree
    assert len(project.verify_calls()) == 1


def test_merge_lanes_stops_at_a_conflict_and_merges_nothing_silently(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    work = tmp_path / "work"
    sh(tmp_path, "clone", "-q", str(remote), str(work))
    (work / "f.txt").write_text("base\n")
    sh(work, "add", "-A")
    sh(work, "commit", "-qm", "base")
    sh(work, "push", "-q", "origin", "HEAD:main")
    for lane, text in (("ralph/x-000001", "x\n"), ("ralph/y-000002", "y\n")):
        sh(work, "switch", "-q", "-c", lane, "main")
        (work / "f.txt").write_text(text)
        sh(work, "commit", "-qam", lane)
        sh(work, "push", "-q", "origin", f"HEAD:refs/heads/{lane}")
    sh(work, "switch", "-q", "main")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        ["sh", str(MERGE_LANES)], cwd=work, capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 1
    assert "origin/ralph/y-000002 conflicts" in out.stderr
    assert not (work / ".git" / "MERGE_HEAD").exists()  # aborted, not left half done
    assert (work / "f.txt").read_text() == "x\n"  # the first lane merged, the second did not
