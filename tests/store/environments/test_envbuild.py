"""store/environments/envbuild.py: the checks use the start's environments until the tree declares
other
dependencies; a new one is built once per declaration, and a declared package that runs code
at every Python start is refused.

Builds with uv through whole runs are tests/e2e/test_environment.py's."""

from __future__ import annotations

from pathlib import Path

from ralph.store.environments.declared import read_declared
from ralph.store.environments.envbuild import (
    BUILT,
    Environments,
    _hooks,
    _key,
    build_folder,
    environments,
)
from ralph.store.environments.envcopy import START_DIGEST, start_envs


def declared(tree: Path) -> str:
    return read_declared(tree).digest


def _start(project: Path, tree: Path) -> None:
    """The copies taken at the run's start, with the declarations they were taken for."""
    start_envs(project).mkdir(parents=True)
    (start_envs(project) / START_DIGEST).write_text(declared(tree))


def test_the_starts_environments_serve_while_the_declarations_are_the_same(
    tmp_path: Path,
) -> None:
    project, tree = tmp_path / "p", tmp_path / "tree"
    tree.mkdir()
    (tree / "requirements.txt").write_text("pytest\n")
    assert environments(project, tree, {}) == Environments(start_envs(project))  # none taken
    _start(project, tree)
    (tree / "notes.md").write_text("not a declaration\n")
    assert environments(project, tree, {}) == Environments(start_envs(project))


def test_a_new_declaration_uses_the_environment_built_for_it(tmp_path: Path) -> None:
    project, tree = tmp_path / "p", tmp_path / "tree"
    tree.mkdir()
    (tree / "requirements.txt").write_text("pytest\n")
    _start(project, tree)
    (tree / "requirements.txt").write_text("pytest\nrequests\n")
    built = build_folder(project, _key(read_declared(tree), None, {}), None)
    (built / ".venv").mkdir(parents=True)
    (built / ".venv" / "pyvenv.cfg").write_text("")
    (built / BUILT).write_text("")  # built once already: used again, not built anew
    assert environments(project, tree, {}) == Environments(built, None, ".venv")


def test_the_build_is_keyed_by_the_persons_settings_too() -> None:
    # the same declaration from another index is another environment
    from ralph.rules.environment.declarations import Declaration
    from ralph.store.environments.declared import Declared

    same = Declared(Declaration(requirements=["isodate"]), (), False)
    assert _key(same, None, {}) != _key(same, "index-url = 'x'\n", {})
    assert _key(same, None, {}) != _key(same, None, {"UV_INDEX_URL": "http://other"})
    assert _key(same, None, {}) == _key(same, None, {"HOME": "/elsewhere"})  # not uv's


def _site(tmp_path: Path, files: dict[str, str]) -> Path:
    site = tmp_path / "site-packages"
    site.mkdir()
    for name, text in files.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


def test_what_runs_at_every_python_start_is_found(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "sitecustomize.py": "",
            "usercustomize.pyc": "",
            "patch.pth": "import os; os.environ['X'] = '1'\n",
            "tabbed.pth": "import\tos\n",
            "paths.pth": "/some/path\n",
            "_ralph_start.pth": "import never_counted\n",
            "distutils-precedence.pth": "import os\n",
            "setuptools-80.0.dist-info/RECORD": "setuptools/__init__.py,sha256=x,1\n",
        },
    )
    assert _hooks(site) == {
        "sitecustomize.py",
        "usercustomize.pyc",
        "patch.pth",
        "tabbed.pth",
        "distutils-precedence.pth",  # setuptools' own only when its RECORD lists it
    }


def test_setuptools_own_pth_is_no_hook(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "distutils-precedence.pth": "import os\n",
            "setuptools-80.0.dist-info/RECORD": "distutils-precedence.pth,sha256=x,151\n",
        },
    )
    assert _hooks(site) == set()
