"""ralph's hands stay home: an agent (or a repository) that plants a link where ralph writes or
reads makes ralph refuse in one line, and nothing outside the project changes.

Every attack is played through the real CLI by a real agent program (tests/fakes/linker.py)
that plants its links during its rotation, or by a repository that commits them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.rules.counts.spec import spec_slug
from tests.conftest import Project, Result
from tests.e2e.test_sandbox_run import disk_tmp, need  # noqa: F401 -- the fixture, and the skip

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


LINKER = Path(__file__).parents[1] / "fakes" / "linker.py"


AGENT = f"{sys.executable} {LINKER}"


SENTINEL = "the person's own file, never to be changed\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project with a file of known content, as a home folder would be."""
    folder = tmp_path / "home"
    folder.mkdir(exist_ok=True)
    (folder / ".bashrc").write_text(SENTINEL)
    return folder


def untouched(folder: Path) -> None:
    """The outside folder holds exactly its sentinel, unchanged."""
    assert sorted(p.name for p in folder.iterdir()) == [".bashrc"]
    assert (folder / ".bashrc").read_text() == SENTINEL


def refused(result: Result, *words: str) -> None:
    """Exit 1, one `error:` line (and its hint) saying a link was refused, no traceback."""
    assert result.exit_code == 1, result
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result
    assert "Traceback" not in result.stderr + result.stdout
    for word in words:
        assert word in errors[0], result


def plant(
    project: Project, monkeypatch: pytest.MonkeyPatch, links: dict[str, Path], **env: str
) -> None:
    project.write({"specs/a.spec.md": "# A\n\nDo it.\n"})
    monkeypatch.setenv("LINKS", json.dumps({rel: str(to) for rel, to in links.items()}))
    for name, value in env.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize(
    ("rel", "env"),
    [
        (".ralph/current.log", {"LINK_AT": "2"}),  # planted in rotation 2, written in rotation 3
        (".ralph/prompt.md", {}),
        (".ralph/progress.md", {}),
        (".ralph/worklog.jsonl", {}),
        (".ralph/errors.log", {"EXIT": "1"}),  # a failed rotation is written to errors.log
    ],
)
def test_a_linked_file_of_ralph_is_refused_and_its_target_untouched(
    git_project: Project,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    rel: str,
    env: dict[str, str],
) -> None:
    plant(git_project, monkeypatch, {rel: outside / ".bashrc"}, **env)
    result = git_project.run("run", "--agent-command", AGENT, "-n", "3", "--headless")
    refused(result, rel, "link")
    untouched(outside)


def test_a_dangling_link_for_question_md_creates_nothing_outside(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(
        git_project, monkeypatch, {".ralph/question.md": outside / "planted.md"}, SIGNAL="QUESTION"
    )
    result = git_project.run("run", "--agent-command", AGENT, "-n", "3", "--headless")
    refused(result, ".ralph/question.md", "link")
    untouched(outside)


@pytest.mark.parametrize("rel", [".ralph/handoffs", ".ralph/history", ".ralph"])
def test_a_linked_folder_is_refused_and_nothing_is_written_in_it(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch, rel: str
) -> None:
    plant(git_project, monkeypatch, {rel: outside})
    result = git_project.run("run", "--agent-command", AGENT, "-n", "3", "--headless")
    refused(result, "link")
    untouched(outside)
    if rel == ".ralph":  # the person's state is still there, where the agent moved it
        assert json.loads((git_project.root / ".ralph.moved" / "state.json").read_text())["specs"]


def test_an_archive_folder_linked_outside_is_refused_when_the_run_is_archived(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(git_project, monkeypatch, {".ralph/archive": outside}, SIGNAL="DONE")
    result = git_project.run("run", "--agent-command", AGENT, "-n", "5", "--headless")
    refused(result, "archive", "link")
    untouched(outside)
    assert (git_project.root / ".ralph" / "progress.md").exists()  # not moved away


def test_a_repository_that_commits_ralph_as_a_link_is_refused_by_init_and_run(
    git_project: Project, outside: Path
) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    (git_project.root / ".ralph").symlink_to(outside)
    git_project.commit_all()
    refused(git_project.run("init"), ".ralph", "link")
    refused(git_project.run("run", "--agent-command", AGENT, "-n", "1", "--headless"), "link")
    refused(git_project.run("init", "--force"), ".ralph", "link")
    refused(git_project.run("reset", "--all"), ".ralph", "link")
    refused(git_project.run("status"), ".ralph", "link")
    untouched(outside)


def test_guardrails_linked_to_a_secret_outside_are_refused_and_never_prompted(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = outside / ".bashrc"  # stands for ~/.ssh/id_rsa
    plant(git_project, monkeypatch, {".ralph/guardrails.md": secret})
    result = git_project.run("run", "--agent-command", AGENT, "-n", "3", "--headless")
    refused(result, "guardrails.md", "outside")
    prompt = git_project.root / ".ralph" / "prompt.md"
    assert SENTINEL.strip() not in prompt.read_text()
    untouched(outside)


def test_a_handoff_linked_outside_is_refused(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    assert git_project.run("init").exit_code == 0
    handoffs = git_project.root / ".ralph" / "handoffs"
    slug = spec_slug("specs/a.spec.md")
    (handoffs / f"{slug}.md").symlink_to(outside / ".bashrc")
    result = git_project.run("run", "--agent-command", AGENT, "-n", "1", "--headless")
    refused(result, "handoffs", "outside")
    untouched(outside)


def test_a_spec_linked_outside_is_refused_and_not_run(git_project: Project, outside: Path) -> None:
    (git_project.root / "specs").mkdir()
    (git_project.root / "specs" / "creds.spec.md").symlink_to(outside / ".bashrc")
    result = git_project.run("run", "--agent-command", AGENT, "-n", "1", "--headless")
    refused(result, "specs/creds.spec.md", "outside")
    assert not (git_project.root / ".ralph" / "prompt.md").exists()  # no agent was started
    untouched(outside)


def test_a_persons_linked_spec_inside_the_project_keeps_working(git_project: Project) -> None:
    git_project.write({"docs/a.md": "# A\n\nThe linked requirement.\n"})
    (git_project.root / "specs").mkdir()
    (git_project.root / "specs" / "a.spec.md").symlink_to(Path("..") / "docs" / "a.md")
    result = git_project.run("run", "--agent-command", AGENT, "-n", "1", "--headless")
    assert result.exit_code == 3, result
    assert "The linked requirement." in (git_project.root / ".ralph" / "prompt.md").read_text()


def test_handoff_and_guardrail_notes_an_agent_writes_keep_working(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    handoff = f".ralph/handoffs/{spec_slug('specs/a.spec.md')}.md"
    agent = git_project.root.parent / "notes.sh"
    agent.write_text(
        "#!/bin/sh\n"
        'echo "- use make test" >> .ralph/guardrails.md\n'
        f'echo "left off at step $RALPH_ITERATION" > {handoff}\n'
        "echo '<ralph>CONTINUE</ralph>'\n"
    )
    agent.chmod(0o755)
    for _ in range(2):
        result = git_project.run("run", "--agent-command", str(agent), "-n", "1", "--headless")
        assert result.exit_code == 3, result
    prompt = (git_project.root / ".ralph" / "prompt.md").read_text()
    assert "- use make test" in prompt
    assert "left off at step 1" in prompt


@pytest.mark.parametrize("how", ["absolute", "devstdout"])
def test_a_persons_report_outside_the_project_keeps_working(
    git_project: Project, tmp_path: Path, how: str
) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    target = tmp_path / "ci" / "junit.xml" if how == "absolute" else Path("/dev/stdout")
    result = git_project.run_subprocess(
        "run", "--agent-command", AGENT, "-n", "1", "--headless", "--junit", str(target)
    )
    assert result.exit_code == 3, result
    text = target.read_text() if how == "absolute" else result.stdout
    assert "<testsuite" in text


def test_a_report_inside_the_project_through_a_link_is_refused_before_the_run(
    git_project: Project, outside: Path
) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    (git_project.root / "reports").symlink_to(outside)
    result = git_project.run(
        "run", "--agent-command", AGENT, "-n", "1", "--headless", "--junit", "reports/.bashrc"
    )
    refused(result, "reports", "link")
    assert not (git_project.root / ".ralph" / "prompt.md").exists()  # no agent was started
    untouched(outside)


def test_a_report_an_agent_links_outside_mid_run_is_refused_and_the_verdict_stands(
    git_project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(git_project, monkeypatch, {"reports/j.xml": outside / ".bashrc"})
    (git_project.root / "reports").mkdir()
    result = git_project.run(
        "run", "--agent-command", AGENT, "-n", "1", "--headless", "--junit", "reports/j.xml"
    )
    assert result.exit_code == 3, result  # the run's own exit code; the report is refused
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "reports/j.xml" in errors[0] and "link" in errors[0], result
    untouched(outside)


def test_a_persons_report_inside_the_project_is_written_in_a_new_folder(
    git_project: Project,
) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    result = git_project.run(
        "run", "--agent-command", AGENT, "-n", "1", "--headless", "--junit", "out/ci/j.xml"
    )
    assert result.exit_code == 3, result
    assert "<testsuite" in (git_project.root / "out" / "ci" / "j.xml").read_text()


@pytest.mark.parametrize("rel", [".ralph/current.log", ".ralph/guardrails.md", ".ralph"])
def test_inside_bwrap_a_planted_link_is_refused_too(
    disk_tmp: Path,  # noqa: F811 -- the fixture imported above
    monkeypatch: pytest.MonkeyPatch,
    rel: str,
) -> None:
    need("bwrap", monkeypatch)
    home = disk_tmp / "home"  # outside the project, where the sandbox cannot write
    (home / ".bashrc").write_text(SENTINEL)
    project = Project(disk_tmp / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    target = home if rel == ".ralph" else home / ".bashrc"
    plant(project, monkeypatch, {rel: target}, LINK_AT="1")
    # the sandbox passes on only what ralph.yaml names: the attack's own instructions
    project.write({"ralph.yaml": "sandbox:\n  env: [LINKS, LINK_AT]\n"})
    result = project.run_subprocess(
        "run", "--sandbox", "bwrap", "--agent-command", AGENT, "-n", "3", "--headless"
    )
    refused(result, "outside" if rel.endswith(".md") else "link")
    untouched(home)


def test_a_lanes_current_log_linked_outside_is_refused(
    project: Project, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.git("init", "-q", "-b", "main")
    project.write(
        {"specs/a.spec.md": "# A\n", "specs/b.spec.md": "# B\n", ".gitignore": ".ralph/\n"}
    )
    project.commit_all()
    monkeypatch.setenv(
        "LINKS", json.dumps({"$STATE/lanes/*/current.log": str(outside / ".bashrc")})
    )
    result = project.run(
        "run", "--agent-command", AGENT, "--parallel", "2", "-n", "6", "--headless"
    )
    refused(result, "current.log", "link")
    untouched(outside)
