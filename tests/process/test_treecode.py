"""process/treecode.py: a tree's checks test that tree's code, whatever the project's install
mode."""

from __future__ import annotations

import os
from pathlib import Path

from ralph.process.treecode import link_environments, tree_code

SETUPTOOLS_FINDER = """
import sys
MAPPING: dict[str, str] = {'flatpkg': '%s/flatpkg', 'renamed': '%s/lib/other'}
NAMESPACES: dict[str, list[str]] = {}
def install(): sys.meta_path.append(None)
"""


def layout(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """A project with a `src/` package and a flat one, its lane's tree, and a virtualenv."""
    project = tmp_path / "proj"
    tree = project / ".ralph" / "worktrees" / "lane"
    for root in (project, tree):
        (root / "src" / "pkg").mkdir(parents=True)
        (root / "src" / "pkg" / "__init__.py").write_text("")
        (root / "flatpkg").mkdir()
        (root / "flatpkg" / "__init__.py").write_text("")
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    env = {"VIRTUAL_ENV": str(tmp_path / "venv"), "PATH": "", "PYTHONNOUSERSITE": "1"}
    return project, tree, site, env


def test_a_pth_path_into_the_project_is_the_trees_first(tmp_path: Path) -> None:
    project, tree, site, env = layout(tmp_path)
    (site / "__editable__.pkg-1.0.pth").write_text(f"{project / 'src'}\n")
    (site / "other.pth").write_text("/usr/share/elsewhere\n")  # not the project's: left alone
    code = tree_code(tree, project, env)
    assert code.env["PYTHONPATH"] == str(tree.resolve() / "src")
    assert code.outside == ()
    assert code.refusal() is None


def test_an_editable_finders_mapping_is_moved_and_a_renamed_one_is_said(tmp_path: Path) -> None:
    project, tree, site, env = layout(tmp_path)
    p = project.resolve()
    (site / "__editable__.flat-1.0.pth").write_text(
        "import __editable___flat_finder; __editable___flat_finder.install()\n"
    )
    (site / "__editable___flat_finder.py").write_text(SETUPTOOLS_FINDER % (p, p))
    code = tree_code(tree, project, env)
    assert code.first == (str(tree.resolve()),)  # flatpkg's folder: the tree's root
    assert code.env["PYTHONPATH"] == str(tree.resolve())
    assert code.outside == (
        f"{p}/lib/other (module 'renamed', mapped by __editable___flat_finder.py)",
    )
    assert code.refusal() == (
        "the checks may import code from outside this tree: " + code.outside[0]
    )


def test_pythonpath_entries_into_the_project_move_and_others_stay(tmp_path: Path) -> None:
    project, tree, _, env = layout(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(project / "src"), "/opt/tools"])
    code = tree_code(tree, project, env)
    assert code.env["PYTHONPATH"] == os.pathsep.join([str(tree.resolve() / "src"), "/opt/tools"])


def test_a_mapped_folder_the_tree_lacks_and_a_module_only_the_project_has(tmp_path: Path) -> None:
    project, tree, site, env = layout(tmp_path)
    (project / "vendored").mkdir()
    (project / "src" / "extra.py").write_text("")  # the tree deleted it: imports find the root's
    (site / "a.pth").write_text(f"{project / 'vendored'}\n{project / 'src'}\n")
    code = tree_code(tree, project, env)
    assert code.first == (str(tree.resolve() / "src"),)
    none = "the environment puts it on sys.path; this tree has none"
    assert code.outside == (
        f"{project.resolve() / 'vendored'} ({none})",
        f"{project.resolve() / 'src' / 'extra.py'} (not in this tree)",
    )


def test_the_project_itself_is_left_as_it_is(tmp_path: Path) -> None:
    project, _, site, env = layout(tmp_path)
    (site / "a.pth").write_text(f"{project / 'src'}\n")
    assert tree_code(project, project, env).env == env


def git_tree(tmp_path: Path, ignore: str) -> tuple[Path, Path]:
    """A project with its own `.venv`, and a git repository standing for a lane's tree."""
    import subprocess

    project = tmp_path / "proj"
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    tree = project / ".ralph" / "worktrees" / "lane"
    tree.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    (tree / ".gitignore").write_text(ignore)
    return project, tree


def test_the_projects_virtualenv_is_linked_where_git_ignores_it(tmp_path: Path) -> None:
    project, tree = git_tree(tmp_path, ".venv/\n")
    assert link_environments(tree, project) == [".venv"]
    assert (tree / ".venv").is_dir() and not (tree / ".venv").is_symlink()  # `.venv/` matches
    assert (tree / ".venv" / "bin").resolve() == (project / ".venv" / "bin").resolve()
    assert (tree / ".venv" / "pyvenv.cfg").read_text() == "home = /usr/bin\n"
    assert link_environments(tree, project) == []  # once


def test_a_virtualenv_git_would_see_is_never_linked(tmp_path: Path) -> None:
    project, tree = git_tree(tmp_path, "")
    assert link_environments(tree, project) == []
    assert not (tree / ".venv").exists()


def test_asking_git_what_it_ignores_runs_no_program_of_the_trees(tmp_path: Path) -> None:
    import subprocess

    project, tree = git_tree(tmp_path, ".venv/\n")
    ran = tmp_path / "ran"
    (tree / "a.txt").write_text("a\n")
    for args in (("add", "a.txt"), ("config", "core.fsmonitor", f"sh -c 'touch {ran}'")):
        subprocess.run(["git", *args], cwd=tree, check=True)
    assert link_environments(tree, project) == [".venv"]
    assert not ran.exists()
    subprocess.run(["git", "check-ignore", "-q", ".venv"], cwd=tree, check=False)
    assert ran.exists()  # the control: git reading the index runs the tree's fsmonitor
