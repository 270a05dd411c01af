"""specs/discovery.py: spec discovery, which files are specs and in which order (seen as
`ralph status` shows them), and reading one (never through a link out of the project)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from ralph.errors import SpecError, UnsafePath
from ralph.rules.counts.spec import PROMPT_TEMPLATE
from ralph.specs.discovery import discover_specs, find_spec_paths, read_spec, spec_file_hash
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


def test_the_paths_found_are_the_ones_status_shows(project: Project) -> None:
    project.write({**DISCOVERED, **NOT_SPECS})
    assert find_spec_paths(project.root) == status_paths(project)


def test_a_spec_is_read_with_its_hash_and_a_vanished_one_is_none(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_bytes(b"# build it\n")
    spec = read_spec(tmp_path, "PROMPT.md")
    assert spec is not None and spec.text == "# build it\n"
    assert spec.content_hash == hashlib.sha256(b"# build it\n").hexdigest()
    assert spec_file_hash(tmp_path, "PROMPT.md") == spec.content_hash
    assert read_spec(tmp_path, "specs/gone.spec.md") is None  # deleted mid-run
    assert spec_file_hash(tmp_path, "specs/gone.spec.md") is None


def test_a_spec_not_in_utf8_is_one_line_naming_the_byte(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_bytes(b"caf\xe9\n")
    with pytest.raises(SpecError, match=r"PROMPT.md: spec is not valid UTF-8 \(byte 3\)"):
        read_spec(tmp_path, "PROMPT.md")


def test_a_link_inside_the_project_is_read_one_outside_refused(tmp_path: Path) -> None:
    project, secret = tmp_path / "p", tmp_path / "secret.md"
    (project / "specs").mkdir(parents=True)
    (project / "notes").mkdir()
    (project / "notes" / "a.md").write_text("# a\n")
    secret.write_text("a token\n")
    (project / "specs" / "a.spec.md").symlink_to("../notes/a.md")
    (project / "specs" / "b.spec.md").symlink_to(secret)
    spec = read_spec(project, "specs/a.spec.md")
    assert spec is not None and spec.text == "# a\n"
    with pytest.raises(UnsafePath):
        read_spec(project, "specs/b.spec.md")
    assert spec_file_hash(project, "specs/b.spec.md") is None  # never raises


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_in_place_of_a_spec_is_refused_never_waited_on(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    os.mkfifo(tmp_path / "specs" / "a.spec.md")
    assert find_spec_paths(tmp_path) == ["specs/a.spec.md"]
    with pytest.raises(UnsafePath):
        read_spec(tmp_path, "specs/a.spec.md")
    assert spec_file_hash(tmp_path, "specs/a.spec.md") is None


def test_no_spec_at_all_says_where_specs_are_looked_for(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no specs found") as caught:
        discover_specs(tmp_path)
    hint = caught.value.hint or ""
    assert "PROMPT.md" in hint and "specs/" in hint


def test_the_untouched_template_is_left_out_and_said(tmp_path: Path) -> None:
    (tmp_path / "PROMPT.md").write_text(PROMPT_TEMPLATE.replace("\n", "\r\n"))
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "a.spec.md").write_text("# a\n")
    templates: list[str] = []
    assert [s.path for s in discover_specs(tmp_path, templates)] == ["specs/a.spec.md"]
    assert templates == ["PROMPT.md"]
    (tmp_path / "specs" / "a.spec.md").unlink()
    with pytest.raises(SpecError, match=r"PROMPT\.md is still the template"):
        discover_specs(tmp_path)
