"""Seed rules that had no end-to-end test of their own.

Each test drives the real CLI against a real project folder with the scripted agent
(tests/fakes/scripted_agent.py: in-process through `Project.fake`, or as a real program,
sometimes behind a small observer that copies what ralph handed it). Nothing of ralph's own is
mocked. A behaviour that contradicts a seed or the mission README is recorded here as
`@pytest.mark.xfail(reason="BUG: ...", strict=True)` until it is fixed (tests/test_own_specs.py
lets a spec checkbox stay unticked only for such a test).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import SCRIPTED_AGENT, Project

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


# The observer: saves the prompt and state.json it sees at the start of each rotation (named
# by RALPH_ITERATION) into argv[1], then hands the same prompt to the command in argv[2:].
OBSERVER = """\
import os, shutil, subprocess, sys
from pathlib import Path

out = Path(sys.argv[1])
out.mkdir(exist_ok=True)
prompt = sys.stdin.read()
n = os.environ["RALPH_ITERATION"]
(out / (n + ".prompt")).write_text(prompt)
state = Path(os.environ["RALPH_STATE_DIR"]) / "state.json"
if state.exists():
    shutil.copyfile(state, out / (n + ".state.json"))
sys.exit(subprocess.run(sys.argv[2:], input=prompt, text=True).returncode)
"""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def slug(name: str, path: str) -> str:
    """`{name}-{hash6}` of the seed, computed here independently of ralph."""
    return f"{name}-{hashlib.sha256(path.encode()).hexdigest()[:6]}"


def observed(project: Project, steps: dict[str, list[dict[str, Any]]]) -> tuple[str, Path]:
    """The scripted agent behind the observer: (agent command, folder of observations)."""
    observer = project.root.parent / "observer.py"
    observer.write_text(OBSERVER)
    seen = project.root.parent / "observed"
    return f"{sys.executable} {observer} {seen} {project.script(steps)}", seen


def seen_state(seen: Path, iteration: int) -> dict[str, dict[str, Any]]:
    data = json.loads((seen / f"{iteration}.state.json").read_text())
    return {row["path"]: row for row in data["specs"]}


def rows(project: Project) -> dict[str, dict[str, Any]]:
    return {row["path"]: row for row in project.state()["specs"]}


def order(project: Project) -> list[str]:
    return [c["spec"] for c in project.calls()]


def modes(project: Project) -> list[str]:
    return [c["mode"] for c in project.calls()]


def seed_state(project: Project, specs: list[dict[str, Any]]) -> None:
    """Write a state.json as an earlier run would have left it (`"hash": True`: matches disk)."""
    for row in specs:
        row.setdefault("modified_files", False)
        row.setdefault("rotations", 1)
        row.setdefault("implement_rotations", 0)
        row.setdefault("review_rotations", 0)
        row.setdefault("blocked", None)
        row.setdefault("agent_front_matter", None)
        if row.pop("hash", False):
            row["last_hash"] = hashlib.sha256((project.root / row["path"]).read_bytes()).hexdigest()
    data = {"schema_version": 1, "iteration": 0, "specs": specs}
    project.write({".ralph/state.json": json.dumps(data)})


def status_paths(project: Project) -> list[str]:
    res = project.run("status", "--json")
    assert res.exit_code == 0, res
    return [s["path"] for s in json.loads(res.stdout)["specs"]]


NOT_SPECS = {
    "specs/notes.md": "not a spec: wrong suffix\n",
    "specs/a.spec.md.bak": "backup\n",
    "specs/spec.md": "no .spec.md suffix\n",
    "specs/sub/readme.txt": "text\n",
    ".ralph/specs/todo.md": "not a spec\n",
    ".ralph/other.spec.md": "outside .ralph/specs/\n",
    "docs/d.spec.md": "outside the spec folders\n",
    "root.spec.md": "a .spec.md at the root is not searched\n",
    "sub/PROMPT.md": "PROMPT.md counts at the root only\n",
}


def test_new_prompt_md_runs_before_a_new_spec_under_ralph_specs(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", ".ralph/specs/a.spec.md": "# a\n"})
    res = project.run("run", *project.fake({"*": DONE}), "-n", "1")
    assert res.exit_code == 3, res
    assert order(project) == ["PROMPT.md"]


def test_new_specs_run_in_discovery_order_prompt_then_task(project: Project) -> None:
    project.write(
        {
            "specs/b.spec.md": "b\n",
            "specs/a/z.spec.md": "z\n",
            "RALPH_TASK.md": "# task\n",
            "specs/a.spec.md": "a\n",
            "PROMPT.md": "# prompt\n",
        }
    )
    res = project.run("run", *project.fake({"*": DONE}), "-n", "5")
    assert res.exit_code == 3, res
    # every spec is new (tier 1) and says DONE without changes: each is taken once, by path
    assert order(project) == [
        "PROMPT.md",
        "RALPH_TASK.md",
        "specs/a.spec.md",
        "specs/a/z.spec.md",
        "specs/b.spec.md",
    ]
    history = sorted(p.name for p in (project.root / ".ralph" / "history").iterdir())
    assert slug("000-prompt", "PROMPT.md") in history
    assert slug("000-ralph-task", "RALPH_TASK.md") in history


def test_nested_spec_paths_use_forward_slashes_everywhere(project: Project) -> None:
    project.write({".ralph/specs/deep/er/y.spec.md": "y\n", "specs/sub/x.spec.md": "x\n"})
    res = project.run("run", *project.fake({"*": DONE}), "-n", "2")
    assert res.exit_code == 3, res
    expected = {".ralph/specs/deep/er/y.spec.md", "specs/sub/x.spec.md"}
    assert set(order(project)) == expected  # RALPH_SPEC
    assert set(rows(project)) == expected  # state.json
    assert set(status_paths(project)) == expected
    assert "specs/sub/x.spec.md" in res.stdout


def test_no_spec_files_is_an_error_with_a_helpful_message(project: Project) -> None:
    project.write(NOT_SPECS)
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 1, res
    assert "Traceback" not in res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "no specs" in errors[0], res
    # the message says where specs are looked for and how to get one
    for needle in ("PROMPT.md", "specs/", ".ralph/specs/", "ralph init"):
        assert needle in res.stderr, (needle, res)
    assert project.calls() == []


def test_single_prompt_md_is_a_matrix_of_one(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n- [ ] main\n"})
    cmd = git_project.fake(
        {"PROMPT.md": [{"write": {"main.py": "print(1)\n"}, "signal": "DONE"}, *DONE]}
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    state = git_project.state()
    assert [s["path"] for s in state["specs"]] == ["PROMPT.md"]
    assert state["specs"][0]["done_count"] == 3
    assert order(git_project) == ["PROMPT.md"] * 3
    assert modes(git_project) == ["IMPLEMENT", "REVIEW", "REVIEW"]
    ralph = git_project.root / ".ralph"
    name = slug("000-prompt", "PROMPT.md")
    assert sorted(p.name for p in (ralph / "history").iterdir()) == [name, "final-verification"]
    assert sorted(p.name for p in (ralph / "history" / name).iterdir()) == [
        "001.log",
        "002.log",
        "003.log",
    ]
    assert git_project.calls()[0]["handoff"] == str((ralph / "handoffs" / f"{name}.md").resolve())


@pytest.mark.parametrize(
    ("step", "count", "code"),
    [
        ({"signal": "DONE"}, 3, 0),
        ({"signal": "DONE", "write": {"w.txt": "x"}}, 1, 3),
        ({"signal": "CONTINUE", "write": {"w.txt": "x"}}, 0, 3),
        ({"signal": "ROTATE", "write": {"w.txt": "x"}}, 0, 3),
        ({"signal": "STUCK", "write": {"w.txt": "x"}}, 0, 5),
        ({"signal": "CONTINUE"}, 2, 3),
        ({"signal": "ROTATE"}, 2, 3),
        ({"signal": "STUCK"}, 2, 5),
    ],
)
def test_counter_rules_from_two_of_three_across_a_restart(
    git_project: Project, step: dict[str, Any], count: int, code: int
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    cmd = git_project.fake({"PROMPT.md": [*DONE, *DONE, step]})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    assert git_project.counts() == {"PROMPT.md": 2}
    res = git_project.run("run", *cmd, "-n", "1")
    assert res.exit_code == code, res
    assert git_project.counts() == {"PROMPT.md": count}
    row = rows(git_project)["PROMPT.md"]
    assert row["last_status"] == step["signal"]
    assert row["modified_files"] is ("write" in step)


# A custom command reports no usage: the rotation is counted, its tokens and price unknown.
ONE_UNREPORTED_ROTATION = {
    "rotations": 1,
    "input_tokens": 0,
    "output_tokens": 0,
    "cost_usd": 0.0,
    "unpriced": 1,
}


NON_DONE_STEPS: dict[str, dict[str, Any]] = {
    "CONTINUE": {"signal": "CONTINUE"},
    "ROTATE": {"signal": "ROTATE"},
    "NONE": {"say": "worked, forgot the tag"},
    "ERROR": {"signal": "DONE", "exit": 1},  # a crashed agent's DONE never counts
}


@pytest.mark.parametrize("changed", [False, True], ids=["no-changes", "changes"])
@pytest.mark.parametrize("status", list(NON_DONE_STEPS))
def test_non_done_keeps_focus_and_follows_the_counter_rules(
    git_project: Project, status: str, changed: bool
) -> None:
    git_project.write({"specs/a.spec.md": "a\n", "specs/b.spec.md": "b\n"})
    git_project.commit_all()
    step = dict(NON_DONE_STEPS[status])
    if changed:
        step["write"] = {"a.txt": "work"}
    cmd = git_project.fake({"specs/a.spec.md": [*DONE, step, step, *DONE], "*": DONE})
    res = git_project.run("run", *cmd, "-n", "5")
    assert res.exit_code == 3, res
    # a: 1/3 and switch; b: 1/3 and switch; a (tier 4, lowest count, by path) then stays on a
    # through both non-DONE rotations until its DONE without changes
    a, b = "specs/a.spec.md", "specs/b.spec.md"
    assert order(git_project) == [a, b, a, a, a]
    ends = git_project.rotation_ends()
    assert [e["signal"] for e in ends] == ["DONE", "DONE", status, status, "DONE"]
    if changed:  # non-DONE with changes: 0/3, and IMPLEMENT again
        assert [e["done_count"] for e in ends] == [1, 1, 0, 0, 1]
        assert modes(git_project)[3:] == ["IMPLEMENT", "IMPLEMENT"]
    else:  # non-DONE without changes: unchanged
        assert [e["done_count"] for e in ends] == [1, 1, 1, 1, 2]
        assert modes(git_project)[3:] == ["REVIEW", "REVIEW"]
    assert git_project.counts() == {a: 1 if changed else 2, b: 1}


@pytest.mark.parametrize(("signal_", "active"), [("DONE", 1), ("CONTINUE", 0)])
def test_example_5_selective_propagation_end_to_end(
    git_project: Project, signal_: str, active: int
) -> None:
    a, b, c, d = (f"specs/{x}.spec.md" for x in "abcd")
    git_project.write({a: "a\n", b: "b\n", c: "c\n", d: "d\n"})
    git_project.commit_all()
    seed_state(
        git_project,
        [
            {"path": a, "done_count": 3, "last_status": "DONE", "hash": True, "rotations": 3},
            {"path": b, "done_count": 2, "last_status": "DONE", "hash": True, "rotations": 2},
            {
                "path": c,
                "done_count": 0,
                "last_status": "CONTINUE",
                "hash": True,
                "modified_files": True,
                "rotations": 1,
            },
        ],
    )
    before = rows(git_project)
    cmd = git_project.fake({d: [{"write": {"d.py": "work\n"}, "signal": signal_}]})
    res = git_project.run("run", *cmd, "-n", "1")
    assert res.exit_code == 3, res
    assert order(git_project) == [d]  # new spec D is the active one
    assert git_project.counts() == {a: 2, b: 2, c: 0, d: active}
    after = rows(git_project)
    # the other specs keep their own state; only A loses its full verification
    assert after[a] == {**before[a], "done_count": 2}
    assert after[b] == before[b]
    assert after[c] == before[c]
    assert after[d]["modified_files"] is True
    assert git_project.rotation_ends()[0]["downgraded"] == [a]


@pytest.mark.slow
def test_counter_state_persists_across_real_process_restarts(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    git_project.commit_all()
    cmd = git_project.script(
        {
            "PROMPT.md": [{"write": {"p.py": "1"}, "signal": "DONE"}, *DONE],
            "specs/api.spec.md": [{"signal": "CONTINUE"}, *DONE],
        }
    )
    res = git_project.run_subprocess("run", "--agent-command", cmd, "-n", "3")
    assert res.exit_code == 3, res
    saved = json.loads((git_project.root / ".ralph" / "state.json").read_text())
    assert saved["schema_version"] == 1
    assert saved["iteration"] == 3
    by_path = {s["path"]: s for s in saved["specs"]}
    for row in by_path.values():
        assert {"path", "done_count", "last_status", "last_hash", "modified_files"} <= set(row)
    assert (by_path["PROMPT.md"]["done_count"], by_path["PROMPT.md"]["last_status"]) == (2, "DONE")
    assert by_path["specs/api.spec.md"]["last_status"] == "CONTINUE"
    assert by_path["specs/api.spec.md"]["done_count"] == 0
    # a new process picks up exactly there: api (tier 3) first, then the counters go on
    res = git_project.run_subprocess("run", "--agent-command", cmd)
    assert res.exit_code == 0, res
    assert order(git_project)[3:] == [
        "specs/api.spec.md",
        "PROMPT.md",
        "specs/api.spec.md",
        "specs/api.spec.md",
    ]
    assert git_project.counts() == {"PROMPT.md": 3, "specs/api.spec.md": 3}
    assert git_project.state()["iteration"] == 8  # 7 rotations and the final verification


def test_restart_resumes_from_the_highest_priority_spec(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "a\n", "specs/b.spec.md": "b\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            "specs/b.spec.md": [
                {"write": {"specs/c.spec.md": "# c\n"}, "signal": "CONTINUE"},
                *DONE,
            ],
            "*": DONE,
        }
    )
    res = git_project.run("run", *cmd, "-n", "3")
    assert res.exit_code == 3, res
    # a DONE (1/3); b CONTINUE and adds c; the new c interrupts b and says DONE (1/3)
    assert order(git_project) == ["specs/a.spec.md", "specs/b.spec.md", "specs/c.spec.md"]
    res = git_project.run("run", *cmd, "-n", "1")
    assert res.exit_code == 3, res
    # not the first by path (a), not the last one run (c): b, the only non-DONE spec (tier 3)
    assert order(git_project)[3] == "specs/b.spec.md"


def test_restart_uses_the_runtime_tiers(git_project: Project) -> None:
    a, b, c, d, e = (f"specs/{x}.spec.md" for x in "abcde")
    git_project.write({a: "a\n", b: "b\n", c: "c\n", d: "d\n", e: "e\n"})
    git_project.commit_all()
    seed_state(
        git_project,
        [
            {"path": a, "done_count": 0, "last_status": "ROTATE", "hash": True},  # tier 3
            # b: never processed (not in the matrix) -> tier 1
            {"path": c, "done_count": 1, "last_status": "DONE", "hash": True},  # tier 4
            {"path": d, "done_count": 1, "last_status": "DONE", "last_hash": "old"},  # tier 2
            {
                "path": e,
                "done_count": 1,
                "last_status": "DONE",
                "hash": True,
                "modified_files": True,
            },  # tier 3 (its last rotation changed files)
        ],
    )
    res = git_project.run("run", *git_project.fake({"*": DONE}), "-n", "4")
    assert res.exit_code == 3, res
    assert "spec changed: specs/d.spec.md" in res.stdout
    assert order(git_project) == [b, d, a, e]
    assert modes(git_project) == ["IMPLEMENT", "IMPLEMENT", "IMPLEMENT", "REVIEW"]


def test_tier_four_prefers_the_lower_counter_then_the_path(git_project: Project) -> None:
    a, b, c = (f"specs/{x}.spec.md" for x in "abc")
    git_project.write({a: "a\n", b: "b\n", c: "c\n"})
    git_project.commit_all()
    seed_state(
        git_project,
        [
            {"path": a, "done_count": 2, "last_status": "DONE", "hash": True},
            {"path": b, "done_count": 1, "last_status": "DONE", "hash": True},
            {"path": c, "done_count": 1, "last_status": "DONE", "hash": True},
        ],
    )
    res = git_project.run("run", *git_project.fake({"*": DONE}), "-n", "3")
    assert res.exit_code == 3, res
    assert order(git_project) == [b, c, a]
    assert git_project.counts() == {a: 3, b: 2, c: 2}


def test_current_spec_continues_only_when_it_is_the_last_one_needing_work(
    git_project: Project,
) -> None:
    late = "specs/late.spec.md"
    git_project.write({"PROMPT.md": "# goal\n", late: "# late\n"})
    seed_state(
        git_project,
        [
            {"path": "PROMPT.md", "done_count": 3, "last_status": "DONE", "hash": True},
            {"path": late, "done_count": 1, "last_status": "DONE", "hash": True},
        ],
    )
    cmd = git_project.fake({"*": DONE})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    # after late's DONE without changes (2/3) ralph would switch, but PROMPT.md is at 3/3:
    # the current spec is the only one that needs work, so it continues
    assert order(git_project) == [late, late]
    assert git_project.counts() == {"PROMPT.md": 3, late: 3}


def test_modified_spec_is_detected_mid_run_and_reprioritized(git_project: Project) -> None:
    a, b, c = (f"specs/{x}.spec.md" for x in "abc")
    git_project.write({a: "a\n", b: "b\n", c: "c\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            a: [*DONE, {"write": {c: "c, with a new requirement\n"}, "signal": "DONE"}, *DONE],
            "*": DONE,
        }
    )
    res = git_project.run("run", *cmd, "-n", "6")
    assert res.exit_code == 3, res
    # a, b, c reach 1/3; a reviews and edits c's spec (a stays on itself: it changed files);
    # the re-scan sees c's new hash: c is back to 0/3 and, as a modified spec (tier 2), runs
    # before b (tier 4, 1/3) although b would come first by path and counter
    assert order(git_project) == [a, b, c, a, a, c]
    assert modes(git_project)[5] == "IMPLEMENT"
    assert "spec changed: specs/c.spec.md goes back to 0/3" in res.stdout
    assert rows(git_project)[c]["last_hash"] == sha("c, with a new requirement\n")


def test_spec_added_under_ralph_specs_mid_run_interrupts_current_spec(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    late = ".ralph/specs/late.spec.md"
    cmd = git_project.fake(
        {"PROMPT.md": [{"write": {late: "# late\n"}, "signal": "CONTINUE"}, *DONE], "*": DONE}
    )
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    assert order(git_project) == ["PROMPT.md", late]
    assert f"new spec: {late}" in res.stdout
    prompt = rows(git_project)["PROMPT.md"]
    # a new spec file is a change of tracked files, even under .ralph/specs/
    assert (prompt["last_status"], prompt["modified_files"], prompt["done_count"]) == (
        "CONTINUE",
        True,
        0,
    )


def test_agent_editing_its_own_spec_under_ralph_specs_is_a_change(
    git_project: Project,
) -> None:
    spec = ".ralph/specs/x.spec.md"
    git_project.write({spec: "- [ ] one\n"})
    cmd = git_project.fake(
        {spec: [{"signal": "DONE"}, {"write": {spec: "- [x] one\n"}, "signal": "DONE"}, *DONE]}
    )
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    # spec files are tracked files even where no snapshot looks (.ralph/): the review that
    # ticks a box has changed files, so it is 1/3 again, not 2/3; the new hash is recorded,
    # so the spec is not "modified" (it stays in REVIEW mode)
    assert modes(git_project) == ["IMPLEMENT", "REVIEW", "REVIEW", "REVIEW"]
    assert [e["files_changed"] for e in git_project.rotation_ends()] == [0, 1, 0, 0]
    assert [e["done_count"] for e in git_project.rotation_ends()] == [1, 1, 2, 3]
    row = rows(git_project)[spec]
    assert (row["done_count"], row["modified_files"]) == (3, False)
    assert row["last_hash"] == sha("- [x] one\n")


def test_rotate_keeps_working_on_the_same_spec(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            "PROMPT.md": [
                {"write": {"p.py": "1"}, "signal": "ROTATE"},
                {"signal": "ROTATE"},
                *DONE,
            ],
            "*": DONE,
        }
    )
    res = git_project.run("run", *cmd, "-n", "4")
    assert res.exit_code == 3, res
    assert order(git_project) == ["PROMPT.md", "PROMPT.md", "PROMPT.md", "specs/api.spec.md"]


def test_spec_state_updates_only_after_it_is_processed(git_project: Project) -> None:
    a, b = "specs/a.spec.md", "specs/b.spec.md"
    git_project.write({a: "a\n", b: "b\n"})
    git_project.commit_all()
    cmd, seen = observed(
        git_project,
        {
            a: DONE,
            b: [
                {"write": {"b.txt": "1"}, "signal": "CONTINUE"},
                {"write": {"b.txt": "2"}, "signal": "CONTINUE"},
            ],
        },
    )
    res = git_project.run("run", "--agent-command", cmd, "-n", "3")
    assert res.exit_code == 3, res
    assert order(git_project) == [a, b, b]
    a_done = {
        "path": a,
        "done_count": 1,
        "last_status": "DONE",
        "last_hash": sha("a\n"),
        "modified_files": False,
        "rotations": 1,
        "implement_rotations": 1,
        "review_rotations": 0,
        "blocked": None,
        "agent_front_matter": None,
        "usage": ONE_UNREPORTED_ROTATION,
    }
    # while b's first rotation runs, b is still unprocessed: no status, no hash
    during_2 = seen_state(seen, 2)
    assert during_2[b] == {**during_2[b], "done_count": 0, "last_status": None, "last_hash": None}
    assert during_2[b]["rotations"] == 0
    # b changed files twice; a was not processed again and keeps every field of its own
    during_3 = seen_state(seen, 3)
    assert during_3[b]["last_status"] == "CONTINUE"
    assert during_3[b]["modified_files"] is True
    assert during_3[a] == a_done
    assert rows(git_project)[a] == a_done
    assert rows(git_project)[b]["rotations"] == 2


def test_spec_list_changes_mid_run_preserve_unchanged_specs(git_project: Project) -> None:
    a, b, c = (f"specs/{x}.spec.md" for x in "abc")
    new = ".ralph/specs/new.spec.md"
    git_project.write({a: "a\n", b: "b\n", c: "c\n"})
    git_project.commit_all()
    cmd = git_project.fake(
        {
            b: [{"write": {new: "# new\n"}, "delete": [c], "signal": "CONTINUE"}],
            "*": DONE,
        }
    )
    res = git_project.run("run", *cmd, "-n", "3")
    assert res.exit_code == 3, res
    assert order(git_project) == [a, b, new]
    assert f"spec removed: {c}" in res.stdout
    after = rows(git_project)
    assert set(after) == {a, b, new}
    assert after[a] == {
        "path": a,
        "done_count": 1,
        "last_status": "DONE",
        "last_hash": sha("a\n"),
        "modified_files": False,
        "rotations": 1,
        "implement_rotations": 1,
        "review_rotations": 0,
        "blocked": None,
        "agent_front_matter": None,
        "usage": ONE_UNREPORTED_ROTATION,
    }


def test_spec_list_changes_between_runs_preserve_unchanged_specs(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", ".ralph/specs/old.spec.md": "# old\n"})
    cmd, seen = observed(git_project, {"*": DONE})
    assert git_project.run("run", "--agent-command", cmd).exit_code == 0
    before = rows(git_project)["PROMPT.md"]
    assert before["done_count"] == 3
    (git_project.root / ".ralph/specs/old.spec.md").unlink()
    git_project.write({".ralph/specs/added.spec.md": "# added\n"})
    res = git_project.run("run", "--agent-command", cmd, "-n", "1")
    assert res.exit_code == 3, res
    assert order(git_project)[6:] == [".ralph/specs/added.spec.md"]
    # as the next rotation starts: the removed spec is gone, the added one is new, and
    # PROMPT.md keeps its state; spec files are tracked files, so it lost only its 3/3
    # (rotation 7 was the first run's final verification)
    during = seen_state(seen, 8)
    assert set(during) == {"PROMPT.md", ".ralph/specs/added.spec.md"}
    assert during["PROMPT.md"] == {**before, "done_count": 2}


def test_changes_between_runs_drop_only_specs_at_three(git_project: Project) -> None:
    late = "specs/late.spec.md"
    git_project.write({"PROMPT.md": "# goal\n", late: "# late\n"})
    seed_state(
        git_project,
        [
            {"path": "PROMPT.md", "done_count": 3, "last_status": "DONE", "hash": True},
            {"path": late, "done_count": 1, "last_status": "DONE", "hash": True},
        ],
    )
    cmd, seen = observed(git_project, {"*": DONE})
    assert git_project.run("run", "--agent-command", cmd, "-n", "1").exit_code == 3
    before = rows(git_project)
    assert (before["PROMPT.md"]["done_count"], before[late]["done_count"]) == (3, 2)
    git_project.write({"notes.txt": "the user edited something between runs\n"})
    res = git_project.run("run", "--agent-command", cmd, "-n", "1")
    assert res.exit_code == 3, res
    assert "files changed since the last run" in res.stdout
    # as the next rotation starts: 3/3 became 2/3, everything else is as it was
    during = seen_state(seen, 2)
    assert during["PROMPT.md"] == {**before["PROMPT.md"], "done_count": 2}
    assert during[late] == before[late]


def test_handoffs_are_per_spec_and_guardrails_are_shared(git_project: Project) -> None:
    a, b = "specs/a.spec.md", "specs/b.spec.md"
    git_project.write({a: "a\n", b: "b\n"})
    git_project.commit_all()
    handoff_a = f".ralph/handoffs/{slug('a.spec', a)}.md"
    handoff_b = f".ralph/handoffs/{slug('b.spec', b)}.md"
    cmd, seen = observed(
        git_project,
        {
            a: [
                {
                    "write": {handoff_a: "NOTE-FROM-A\n", ".ralph/guardrails.md": "LESSON-A\n"},
                    "signal": "DONE",
                },
                *DONE,
            ],
            b: [{"write": {handoff_b: "NOTE-FROM-B\n"}, "signal": "DONE"}],
        },
    )
    res = git_project.run("run", "--agent-command", cmd, "-n", "3")
    assert res.exit_code == 3, res
    assert order(git_project) == [a, b, a]
    calls = git_project.calls()
    root = git_project.root.resolve()
    assert [c["handoff"] for c in calls] == [
        str(root / h) for h in (handoff_a, handoff_b, handoff_a)
    ]
    prompt_b = (seen / "2.prompt").read_text()
    prompt_a = (seen / "3.prompt").read_text()
    assert "LESSON-A" in prompt_b  # one guardrails file, read by every spec
    assert "NOTE-FROM-A" not in prompt_b  # a's handoff is a's only
    assert "NOTE-FROM-A" in prompt_a
    assert "NOTE-FROM-B" not in prompt_a
    assert sorted(p.name for p in (root / ".ralph" / "handoffs").iterdir()) == sorted(
        [Path(handoff_a).name, Path(handoff_b).name]
    )
    assert [p.name for p in (root / ".ralph").glob("guardrails*")] == ["guardrails.md"]


@pytest.mark.parametrize(("tail", "status"), [({"signal": "ROTATE"}, "ROTATE"), ({}, "NONE")])
def test_echoed_spec_tag_line_never_counts_but_the_agents_own_tag_does(
    project: Project, tail: dict[str, Any], status: str
) -> None:
    project.write({"PROMPT.md": "When everything works, print\n<ralph>DONE</ralph>\n"})
    cmd = project.fake({"*": [{"echo_prompt": True, **tail}]})
    res = project.run("run", *cmd, "-n", "1")
    assert res.exit_code == 3, res
    assert rows(project)["PROMPT.md"]["last_status"] == status
    assert project.counts() == {"PROMPT.md": 0}


@pytest.mark.parametrize("kind", ["git", "walk"])
def test_ignored_files_never_count_as_changes(project: Project, kind: str) -> None:
    project.write(
        {"PROMPT.md": "# goal\n", ".gitignore": "build/\n*.log\n", ".ralphignore": "scratch/\n"}
    )
    if kind == "git":
        project.git("init", "-q")
        project.commit_all()
    junk = {
        "build/out.bin": "x",
        "debug.log": "x",
        "scratch/notes.md": "x",
        ".ralph/agent-notes.md": "x",
    }
    cmd = project.fake({"*": [{"write": junk, "signal": "DONE"}]})
    res = project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert [e["files_changed"] for e in project.rotation_ends()] == [0, 0, 0]
    assert modes(project) == ["IMPLEMENT", "REVIEW", "REVIEW"]


def wait_for(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_changes_of_a_killed_rotation_are_seen_by_the_next_run(git_project: Project) -> None:
    late = "specs/late.spec.md"
    git_project.write({"PROMPT.md": "# goal\n", late: "# late\n"})
    # PROMPT.md verified by an earlier run; the late spec never processed
    seed_state(
        git_project, [{"path": "PROMPT.md", "done_count": 3, "last_status": "DONE", "hash": True}]
    )
    done = git_project.fake({"*": DONE})
    hang = git_project.root.parent / "hang.json"
    hang.write_text(json.dumps({"*": [{"write": {"work.txt": "half"}, "sleep": 30}]}))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ralph",
            "run",
            "--agent-command",
            f"{sys.executable} {SCRIPTED_AGENT} {hang}",
        ],
        cwd=git_project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    agents: list[psutil.Process] = []
    try:
        wait_for((git_project.root / "work.txt").exists)
        agents = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        for agent in agents:
            with suppress(psutil.NoSuchProcess):
                agent.kill()
    # kill -9: the rotation was never recorded
    assert git_project.counts() == {"PROMPT.md": 3, late: 0}
    assert rows(git_project)[late]["last_status"] is None
    res = git_project.run("run", *done, "-n", "1")
    assert res.exit_code == 3, res
    assert "files changed since the last run" in res.stdout
    assert git_project.counts() == {"PROMPT.md": 2, late: 1}


def run_on_a_terminal(project: Project, *args: str) -> tuple[int, str]:
    """`ralph run` with its stdout on a pseudo-terminal: the live panel, as a user sees it."""
    import pty

    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "40"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", *args],
        cwd=project.root,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 20)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed: EIO on Linux
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        code = proc.wait(timeout=10)
    return code, ANSI.sub("", out.decode("utf-8", "replace"))


def spec_rows(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"│\s*Spec:\s+(\S+)\s*│", text)]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminal")
def test_panel_shows_the_spec_row_with_a_single_prompt(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    cmd = project.script({"*": [{"say": "working", "sleep": 0.3, "signal": "DONE"}]})
    code, text = run_on_a_terminal(project, "--agent-command", cmd, "-n", "1")
    assert code == 3, text
    assert "Iteration:" in text  # the live panel, not plain lines
    assert "PROMPT.md" in spec_rows(text), text


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminal")
def test_panel_spec_row_follows_the_current_spec(project: Project) -> None:
    project.write({"specs/v2/api.spec.md": "# api\n", "specs/web.spec.md": "# web\n"})
    cmd = project.script({"*": [{"say": "working", "sleep": 0.3, "signal": "DONE"}]})
    code, text = run_on_a_terminal(project, "--agent-command", cmd, "-n", "2")
    assert code == 3, text
    shown = [s for s in spec_rows(text) if s != "—"]
    assert shown[0] == "specs/v2/api.spec.md", text
    assert shown[-1] == "specs/web.spec.md", text
