"""The name users install ralph by: one distribution name everywhere, never a stranger's project."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


REPO = Path(__file__).resolve().parents[1]


PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


NAME = PYPROJECT["project"]["name"]


REPOSITORY = PYPROJECT["project"]["urls"]["Repository"]


# Another author's distribution, which also installs a `ralph` command.
TAKEN = "ralph-loop"


DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*")), REPO / "Makefile"]


def texts() -> dict[str, str]:
    files = [f for f in DOCS if f.is_file()]
    files += sorted((REPO / "src").rglob("*.py"))
    return {str(f.relative_to(REPO)): f.read_text() for f in files}


def pip_installs(text: str) -> list[str]:
    """The requirement each `pip install` line of the text asks for (options left out)."""
    found = []
    for line in text.splitlines():
        match = re.search(r"pip install (.*)", line)
        if not match:
            continue
        words = re.findall(r'"[^"]*"|\S+', match.group(1).split("#")[0])
        found += [w.strip('"') for w in words if not w.startswith("-")]
    return found


def test_the_name_is_ours_and_the_command_stays_ralph() -> None:
    assert NAME == "ralph-spec-loop"
    assert PYPROJECT["project"]["scripts"] == {"ralph": "ralph.entry:main"}


def test_nothing_tells_users_to_install_the_taken_name() -> None:
    for where, text in texts().items():
        for requirement in pip_installs(text):
            name = re.split(r"[\s@=<>!~\[;]", requirement, maxsplit=1)[0]
            assert name.lower().replace("_", "-") != TAKEN, f"{where}: pip install {requirement}"
        assert not re.search(rf"pip install\b[^\n]*\b{TAKEN}\b", text), where


def tags() -> set[str]:
    out = subprocess.run(
        ["git", "tag", "--list"], cwd=REPO, capture_output=True, text=True, check=False
    )
    return set(out.stdout.split()) if out.returncode == 0 else set()


def test_no_document_pins_a_tag_that_does_not_exist() -> None:
    # the README once pinned v0.1.0, a tag never made: every install from it failed
    for where, text in texts().items():
        for requirement in pip_installs(text):
            if requirement.startswith(f"{NAME} @ git+"):
                ref = requirement.removeprefix(f"{NAME} @ git+{REPOSITORY}").lstrip("@")
                assert not ref or ref in tags(), f"{where}: {requirement}: no tag {ref}"


def test_readme_and_workflow_install_this_project_from_its_own_repository() -> None:
    # no release is tagged yet: the repository's default branch
    wanted = f"{NAME} @ git+{REPOSITORY}"
    for doc in (REPO / "README.md", REPO / "docs" / "github-actions.yml"):
        installs = [r for r in pip_installs(doc.read_text()) if "/" not in r or "git+" in r]
        named = [r for r in installs if not r.startswith((".", "/"))]
        assert wanted in named, (doc.name, named)
        # Every install of ralph by name is this one: the name, the repository and the tag agree.
        assert all(r == wanted for r in named if r.startswith("ralph")), (doc.name, named)
    # every other document that installs ralph (the lanes workflow, ...) installs the same
    for where, text in texts().items():
        ours = [r for r in pip_installs(text) if r.startswith("ralph")]
        assert all(r == wanted for r in ours), (where, ours)
    readme = (REPO / "README.md").read_text()
    assert f"**`{NAME}`**" in readme
    assert f"this project's own repository,\n`{REPOSITORY}`" in readme
    assert "@v" not in readme
