"""Deeply nested YAML: in ralph.yaml or a spec's front matter, one clear line and exit 1; written
by the agent mid-run, the spec's DONEs are refused as for any broken front matter, and neither
this run nor a later one crashes."""

from __future__ import annotations

from tests.conftest import Project

DONE = [{"signal": "DONE"}]
DEEP = "---\ntest_command: " + "[" * 5000 + "]" * 5000 + "\n---\n# goal\n"


def test_deep_ralph_yaml_is_one_line(git_project: Project) -> None:
    p = git_project
    # one space a level: 3,000 levels in 4.5 MB, within the size ralph reads
    deep = "x:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 3000))
    p.write({"PROMPT.md": "# goal\n", "ralph.yaml": deep})
    res = p.run_subprocess("run", "--agent", "demo", "-n", "1")
    assert res.exit_code == 1, res
    assert res.stderr.splitlines()[0] == (
        "error: ralph.yaml: invalid YAML (nested too deeply: more levels than ralph reads)"
    )
    assert "Traceback" not in res.stderr


def test_deep_front_matter_is_one_line(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": DEEP})
    res = p.run_subprocess("run", "--agent", "demo", "-n", "1")
    assert res.exit_code == 1, res
    assert "error: PROMPT.md: front matter is not valid YAML (nested too deeply" in res.stderr
    assert "Traceback" not in res.stderr


def test_deep_front_matter_written_mid_run_crashes_nothing(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "---\ntest_command: 'true'\n---\n# goal\n", "specs/b.spec.md": "# b\n"})
    script = p.script({"PROMPT.md": [{"write": {"PROMPT.md": DEEP}, "signal": "DONE"}], "*": DONE})
    for _ in range(2):  # this run, and the next one
        res = p.run_subprocess("run", "--agent-command", script, "--headless", "-n", "3")
        assert "Traceback" not in res.stderr and "RecursionError" not in res.stderr, res
        assert res.exit_code in (1, 3, 5), res
        assert "front matter is not valid YAML (nested too deeply" in res.stdout + res.stderr
