"""specs/discovery.py: spec discovery."""

from __future__ import annotations

import json

from tests.conftest import Project


def status_paths(project: Project) -> list[str]:
    res = project.run("status", "--json")
    assert res.exit_code == 0, res
    return [s["path"] for s in json.loads(res.stdout)["specs"]]


DISCOVERED = {
    "PROMPT.md": "# prompt\n",
    "RALPH_TASK.md": "# task\n",
    "specs/b.spec.md": "b\n",
    "specs/a.spec.md": "a\n",
    "specs/a/z.spec.md": "z\n",
    "specs/sub/deeper/c.spec.md": "c\n",
    ".ralph/specs/x.spec.md": "x\n",
    ".ralph/specs/deep/er/y.spec.md": "y\n",
}


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


def test_discovery_is_recursive_and_ignores_other_files(project: Project) -> None:
    project.write({**DISCOVERED, **NOT_SPECS})
    paths = status_paths(project)
    assert sorted(paths) == sorted(DISCOVERED)
    assert all("\\" not in p and not p.startswith(("/", "./")) for p in paths)


def test_discovery_sorts_by_full_relative_path_with_both_root_prompts_first(
    project: Project,
) -> None:
    project.write({k: v for k, v in DISCOVERED.items() if not k.startswith(".ralph/")})
    assert status_paths(project) == [
        "PROMPT.md",
        "RALPH_TASK.md",
        "specs/a.spec.md",  # "." sorts before "/": the full path decides, not the folder
        "specs/a/z.spec.md",
        "specs/b.spec.md",
        "specs/sub/deeper/c.spec.md",
    ]


def test_discovery_sorts_ralph_specs_by_full_path(project: Project) -> None:
    project.write({k: v for k, v in DISCOVERED.items() if k.startswith(".ralph/")})
    project.write({"specs/a.spec.md": "a\n"})
    assert status_paths(project) == [
        ".ralph/specs/deep/er/y.spec.md",
        ".ralph/specs/x.spec.md",
        "specs/a.spec.md",
    ]


def test_prompt_md_sorts_before_specs_under_ralph_specs(project: Project) -> None:
    # "000-prompt.spec.md" as a plain string would sort after ".ralph/..." ('.' < '0'):
    # PROMPT.md is first all the same, then RALPH_TASK.md, then every path in order
    project.write(DISCOVERED)
    assert status_paths(project) == [
        "PROMPT.md",
        "RALPH_TASK.md",
        ".ralph/specs/deep/er/y.spec.md",
        ".ralph/specs/x.spec.md",
        "specs/a.spec.md",
        "specs/a/z.spec.md",
        "specs/b.spec.md",
        "specs/sub/deeper/c.spec.md",
    ]
