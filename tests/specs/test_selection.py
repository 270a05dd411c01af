"""specs/selection.py: `--spec PATH` names specs as the user typed them (from the current
folder, from the project root, or absolute); anything else is one clear usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.errors import UsageError
from ralph.specs.selection import select_specs


def _project(root: Path) -> Path:
    for name in ("PROMPT.md", "specs/b.spec.md", "specs/a.spec.md", "notes/c.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("# x\n")
    return root


def test_paths_from_the_root_the_current_folder_or_absolute_name_the_same_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path)
    assert select_specs(root, ["specs/a.spec.md"]) == ("specs/a.spec.md",)
    assert select_specs(root, [str(root / "specs" / "a.spec.md")]) == ("specs/a.spec.md",)
    monkeypatch.chdir(root / "specs")
    assert select_specs(root, ["a.spec.md"]) == ("specs/a.spec.md",)


def test_the_chosen_specs_come_in_discovery_order_once_each(tmp_path: Path) -> None:
    root = _project(tmp_path)
    given = ["specs/b.spec.md", "PROMPT.md", "specs/b.spec.md"]
    assert select_specs(root, given) == ("PROMPT.md", "specs/b.spec.md")


@pytest.mark.parametrize("given", ["notes/c.md", "specs/missing.spec.md", "../elsewhere.spec.md"])
def test_a_path_that_is_no_spec_of_the_project_is_one_usage_error(
    tmp_path: Path, given: str
) -> None:
    root = _project(tmp_path / "proj")
    (tmp_path / "elsewhere.spec.md").write_text("# not this project's\n")
    with pytest.raises(UsageError) as caught:
        select_specs(root, [given])
    assert f"--spec {given}: not a spec of {root}" in str(caught.value)
    assert "specs/a.spec.md" in str(caught.value.hint)  # what it could have been


def test_no_spec_at_all_says_to_write_one(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        select_specs(tmp_path, ["PROMPT.md"])
    assert "ralph init" in str(caught.value.hint)
