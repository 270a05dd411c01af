"""store/snapshots/walk.py: the walk of one folder git ignores but the person's rules do not: every
file
fingerprinted but those skipped, a repository inside as one entry (as git lists it)."""

from __future__ import annotations

from pathlib import Path

from ralph.store.snapshots.walk import walk_folder


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_every_file_under_the_folder_but_those_skipped(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "build/a.txt": "a",
            "build/deep/b.txt": "b",
            "build/cache/c.txt": "c",
            "build/skip.log": "s",
            "other/d.txt": "d",
        },
    )

    def skip(rel: str) -> bool:
        return rel in ("build/cache/", "build/skip.log")

    found = walk_folder(tmp_path, "build/", skip, lambda rel: f"fp:{rel}")
    assert found == {"build/a.txt": "fp:build/a.txt", "build/deep/b.txt": "fp:build/deep/b.txt"}


def test_a_repository_inside_is_one_entry_and_a_missing_folder_none(tmp_path: Path) -> None:
    tree(tmp_path, {"vendor/lib/.git/HEAD": "ref", "vendor/lib/x.py": "x", "vendor/y.py": "y"})
    found = walk_folder(tmp_path, "vendor/", lambda rel: False, lambda rel: f"fp:{rel}")
    assert found == {"vendor/lib": "fp:vendor/lib", "vendor/y.py": "fp:vendor/y.py"}
    assert walk_folder(tmp_path, "gone/", lambda rel: False, lambda rel: rel) == {}
