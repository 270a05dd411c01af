"""commands/run.py: `ralph run`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import Project

SPECS = {
    "specs/a.spec.md": "# a\n- [ ] a\n",
    "specs/b.spec.md": "# b\n- [ ] b\n",
    "specs/c.spec.md": "# c\n- [ ] c\n",
}


def test_a_path_relative_to_the_current_folder(git_project: Project) -> None:
    git_project.write(SPECS)
    cwd = Path.cwd()
    os.chdir(git_project.root / "specs")
    try:
        from ralph.specs.selection import select_specs

        assert select_specs(git_project.root, ["b.spec.md"]) == ("specs/b.spec.md",)
    finally:
        os.chdir(cwd)
