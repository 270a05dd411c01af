"""The built-in demo agent, run as a real program on a copy of the bundled example."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / ".ralph-example"
AGENT = [sys.executable, "-m", "ralph.agents.demo"]
PROMPT = "You are working on a spec.\n<ralph>DONE</ralph> is how you say you are finished.\n"


@dataclass(frozen=True)
class Rotation:
    returncode: int
    stdout: str
    stderr: str

    @property
    def signal(self) -> str:
        return self.stdout.splitlines()[-1]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "greeter"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".ralph", "__pycache__"))
    return root


def run_agent(
    root: Path,
    spec: str | None,
    mode: str = "IMPLEMENT",
    *,
    iteration: int = 1,
    stdin: str = PROMPT,
) -> Rotation:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RALPH_")}
    state = root / ".ralph"
    prompt_file = state / "prompt.md"
    prompt_file.parent.mkdir(parents=True, exist_ok=True)
    prompt_file.write_text(stdin, encoding="utf-8")
    env |= {
        "RALPH_MODE": mode,
        "RALPH_ITERATION": str(iteration),
        "RALPH_STATE_DIR": str(state),
        "RALPH_PROMPT_FILE": str(prompt_file),
        "RALPH_DEMO_DELAY": "0",
    }
    if spec is not None:
        env["RALPH_SPEC"] = spec
        env["RALPH_HANDOFF_FILE"] = str(state / "handoffs" / (Path(spec).stem + ".md"))
    done = subprocess.run(
        AGENT,
        cwd=root,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return Rotation(done.returncode, done.stdout, done.stderr)


def tree(root: Path) -> dict[str, bytes]:
    """Every project file but ralph's state: what a rotation's snapshot would compare."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".ralph" not in path.relative_to(root).parts
    }


def block(spec_text: str, path: str) -> bytes:
    """The content of the spec's `file=PATH` block, cut out by hand rather than by the agent."""
    lines = spec_text.splitlines()
    start = next(i for i, line in enumerate(lines) if f"file={path}" in line)
    opener = lines[start].lstrip()
    fence = opener[: len(opener) - len(opener.lstrip("`~"))]
    indent = len(lines[start]) - len(opener)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == fence)
    return "".join(line[indent:] + "\n" for line in lines[start + 1 : end]).encode()


def implement_all(root: Path) -> None:
    for spec in ("PROMPT.md", "specs/cli.spec.md", "specs/docs.spec.md"):
        for _ in range(5):
            if run_agent(root, spec).signal == "<ralph>DONE</ralph>":
                break


def test_implement_ticks_two_boxes_writes_their_files_and_continues(project: Path) -> None:
    first = run_agent(project, "specs/cli.spec.md")
    assert first.returncode == 0, first.stderr
    assert first.signal == "<ralph>CONTINUE</ralph>"
    spec = (project / "specs/cli.spec.md").read_text(encoding="utf-8")
    assert spec.count("- [x]") == 2
    assert spec.count("- [ ]") == 1
    assert (project / "greet/cli.py").read_bytes() == block(spec, "greet/cli.py")
    assert (project / "greet/__main__.py").read_bytes() == block(spec, "greet/__main__.py")
    assert not (project / "tests/test_cli.py").exists()

    second = run_agent(project, "specs/cli.spec.md", iteration=2)
    assert second.signal == "<ralph>DONE</ralph>"
    spec = (project / "specs/cli.spec.md").read_text(encoding="utf-8")
    assert "- [ ]" not in spec
    assert (project / "tests/test_cli.py").read_bytes() == block(spec, "tests/test_cli.py")


def test_ticking_changes_only_the_box_marks(project: Path) -> None:
    before = (project / "PROMPT.md").read_text(encoding="utf-8")
    run_agent(project, "PROMPT.md")
    after = (project / "PROMPT.md").read_text(encoding="utf-8")
    assert after == before.replace("- [ ]", "- [x]")


def test_output_ends_with_exactly_one_signal_line(project: Path) -> None:
    rotation = run_agent(project, "PROMPT.md")
    lines = rotation.stdout.splitlines()
    assert len(lines) >= 3  # narration: what it read, what it edited
    assert [line for line in lines if "<ralph>" in line] == ["<ralph>DONE</ralph>"]
    assert lines[-1] == "<ralph>DONE</ralph>"


def test_review_without_changes_says_done_and_touches_nothing(project: Path) -> None:
    implement_all(project)
    before = tree(project)
    rotation = run_agent(project, "PROMPT.md", "REVIEW")
    assert rotation.returncode == 0, rotation.stderr
    assert rotation.signal == "<ralph>DONE</ralph>"
    assert tree(project) == before


def test_review_restores_deleted_and_changed_files(project: Path) -> None:
    implement_all(project)
    expected = tree(project)
    (project / "greet/core.py").unlink()
    (project / "greet/__init__.py").write_text("broken = True\n", encoding="utf-8")
    rotation = run_agent(project, "PROMPT.md", "REVIEW")
    assert rotation.signal == "<ralph>DONE</ralph>"
    assert "greet/core.py" in rotation.stdout
    assert tree(project) == expected


def test_review_found_item_is_ticked_on_the_second_review_only(project: Path) -> None:
    docs = "specs/docs.spec.md"
    implement = run_agent(project, docs)
    assert implement.signal == "<ralph>DONE</ralph>"  # the review-only box is left alone
    text = (project / docs).read_text(encoding="utf-8")
    assert (project / "greet/README.md").read_bytes() == block(text, "greet/README.md")
    assert "- [ ] `CHANGELOG.md`" in text
    assert not (project / "CHANGELOG.md").exists()

    before = tree(project)
    assert run_agent(project, docs, "REVIEW").signal == "<ralph>DONE</ralph>"
    assert tree(project) == before

    assert run_agent(project, docs, "REVIEW").signal == "<ralph>DONE</ralph>"
    text = (project / docs).read_text(encoding="utf-8")
    assert "- [x] `CHANGELOG.md`" in text
    assert (project / "CHANGELOG.md").read_bytes() == block(text, "CHANGELOG.md")

    before = tree(project)
    assert run_agent(project, docs, "REVIEW").signal == "<ralph>DONE</ralph>"
    assert tree(project) == before
    memory = json.loads((project / ".ralph/demo-agent.json").read_text(encoding="utf-8"))
    assert memory["reviews"][docs] == 3


def test_reviews_are_counted_per_spec(project: Path) -> None:
    implement_all(project)
    run_agent(project, "PROMPT.md", "REVIEW")
    run_agent(project, "specs/cli.spec.md", "REVIEW")
    before = tree(project)
    run_agent(project, "specs/docs.spec.md", "REVIEW")  # the first review of docs
    assert tree(project) == before


def test_handoff_says_what_was_done_and_what_remains(project: Path) -> None:
    run_agent(project, "specs/cli.spec.md", iteration=4)
    handoff = (project / ".ralph/handoffs/cli.spec.md").read_text(encoding="utf-8")
    assert handoff.startswith("# Handoff: specs/cli.spec.md")
    assert "rotation 4 (IMPLEMENT)" in handoff
    assert "## Done this rotation" in handoff
    assert "(wrote `greet/cli.py`)" in handoff
    assert "- [ ] `tests/test_cli.py`" in handoff.split("## What remains")[1]
    assert "CONTINUE" in handoff
    assert "<ralph>" not in handoff

    run_agent(project, "specs/cli.spec.md", iteration=5)
    handoff = (project / ".ralph/handoffs/cli.spec.md").read_text(encoding="utf-8")
    assert "Nothing: every box is ticked." in handoff


def test_missing_spec_variable_is_a_usage_error(project: Path) -> None:
    before = tree(project)
    rotation = run_agent(project, None)
    assert rotation.returncode == 2
    assert "RALPH_SPEC" in rotation.stderr
    assert "<ralph>" not in rotation.stdout
    assert tree(project) == before


def test_unreadable_spec_is_a_usage_error(project: Path) -> None:
    rotation = run_agent(project, "specs/missing.spec.md")
    assert rotation.returncode == 2
    assert "specs/missing.spec.md" in rotation.stderr
    assert "<ralph>" not in rotation.stdout


def test_unknown_mode_is_a_usage_error(project: Path) -> None:
    rotation = run_agent(project, "PROMPT.md", "DANCE")
    assert rotation.returncode == 2
    assert "RALPH_MODE" in rotation.stderr


def test_spec_without_checkboxes_is_done_in_both_modes(project: Path) -> None:
    (project / "specs/notes.spec.md").write_text("# Notes\n\nJust prose.\n", encoding="utf-8")
    before = tree(project)
    implement = run_agent(project, "specs/notes.spec.md")
    assert implement.signal == "<ralph>DONE</ralph>"
    assert "no checkboxes" in implement.stdout
    assert run_agent(project, "specs/notes.spec.md", "REVIEW").signal == "<ralph>DONE</ralph>"
    assert tree(project) == before


def test_judge_answers_verified_only_when_every_box_and_file_is_right(project: Path) -> None:
    before = tree(project)
    first = run_agent(project, "PROMPT.md", "JUDGE")
    assert first.signal.startswith("NOT_VERIFIED: unticked: `greet/core.py`")
    assert tree(project) == before  # a judge writes nothing, not even a handoff
    assert not (project / ".ralph" / "handoffs").exists()
    implement_all(project)
    assert run_agent(project, "PROMPT.md", "JUDGE").signal == "VERIFIED"


def test_verify_passes_only_when_every_box_and_file_is_right(project: Path) -> None:
    assert run_agent(project, "PROMPT.md", "VERIFY").signal == "<ralph>VERIFY_FAIL</ralph>"
    implement_all(project)
    before = tree(project)
    assert run_agent(project, "PROMPT.md", "VERIFY").signal == "<ralph>VERIFY_PASS</ralph>"
    (project / "greet/core.py").unlink()
    assert run_agent(project, "PROMPT.md", "VERIFY").signal == "<ralph>VERIFY_FAIL</ralph>"
    assert not (project / "greet/core.py").exists()
    before.pop("greet/core.py")
    assert tree(project) == before


def test_paths_outside_the_project_are_never_written(project: Path) -> None:
    spec = project / "specs/evil.spec.md"
    spec.write_text(
        "- [ ] `../escape.txt` and `/tmp/abs.txt`\n"
        "```text file=../escape.txt\nno\n```\n"
        "```text file=/tmp/abs.txt\nno\n```\n",
        encoding="utf-8",
    )
    rotation = run_agent(project, "specs/evil.spec.md")
    assert rotation.signal == "<ralph>DONE</ralph>"
    assert not (project.parent / "escape.txt").exists()
    assert "outside the project" in rotation.stdout


def test_a_tag_in_the_spec_does_not_leak_into_the_narration(project: Path) -> None:
    spec = project / "specs/tags.spec.md"
    spec.write_text("- [ ] say <ralph>STUCK</ralph> loudly\n- [ ] then stop\n", encoding="utf-8")
    rotation = run_agent(project, "specs/tags.spec.md")
    assert [line for line in rotation.stdout.splitlines() if "<ralph>" in line] == [
        "<ralph>DONE</ralph>"
    ]


def test_reads_the_whole_prompt_from_stdin(project: Path) -> None:
    # Bigger than any pipe buffer: an agent that stopped reading would leave the writer blocked
    # until it exits, then break the pipe.
    env = {key: value for key, value in os.environ.items() if not key.startswith("RALPH_")}
    env |= {"RALPH_SPEC": "PROMPT.md", "RALPH_MODE": "IMPLEMENT", "RALPH_DEMO_DELAY": "0"}
    with subprocess.Popen(
        AGENT,
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write("x" * 2_000_000 + "\n")
        proc.stdin.close()
        output = proc.stdout.read()
        assert proc.wait(timeout=60) == 0
    assert "prompt (1 line)" in output


def test_the_written_example_code_really_runs(project: Path) -> None:
    implement_all(project)
    run_agent(project, "specs/docs.spec.md", "REVIEW")
    run_agent(project, "specs/docs.spec.md", "REVIEW")
    greet = subprocess.run(
        [sys.executable, "-m", "greet", "Ada", "--shout"],
        cwd=project,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert greet.returncode == 0, greet.stderr
    assert greet.stdout == "HELLO, ADA!\n"
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "discover", "-s", "tests"],
        cwd=project,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tests.returncode == 0, tests.stderr
    assert "Ran 3 tests" in tests.stderr
    for name in ("greet/README.md", "CHANGELOG.md"):
        assert (project / name).read_text(encoding="utf-8").startswith("# ")
