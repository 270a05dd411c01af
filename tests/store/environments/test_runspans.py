"""store/environments/runspans.py: when a run was live, as the kernel's change times tell it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.errors import StateError
from ralph.store.environments.envcopy import TAKEN, envs_dir, record_start_envs, start_envs
from ralph.store.environments.runspans import ENDED, load_spans, record_began, record_ended

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")


def past(marker: Path) -> None:
    """Wait until the kernel's clock stamps a change later than `marker`'s (its coarse tick
    may still be the one the marker was stamped in)."""
    stamped = os.lstat(marker).st_ctime_ns
    probe = marker.parent / "probe"
    for _ in range(100_000):
        probe.write_text("")
        changed = os.lstat(probe).st_ctime_ns
        probe.unlink()
        if changed > stamped:
            return
    raise AssertionError(f"the clock never moved past {marker}'s change time")


def after_the_end(project: Path) -> None:
    past(envs_dir(project) / ENDED)


def venv_folder(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "proj"
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    return root, site, start_envs(root) / ".venv" / "lib" / "python3.11" / "site-packages"


def test_files_changed_or_deleted_while_a_run_was_live_keep_the_copy_version(
    tmp_path: Path,
) -> None:
    root, site, copy = venv_folder(tmp_path)
    (site / "kept.py").write_text("old\n")
    (site / "gone.py").write_text("old\n")
    (site / "pkg").mkdir()
    (site / "pkg" / "mod.py").write_text("old\n")
    record_start_envs(root)
    past(start_envs(root) / TAKEN)  # what the copy took is older than the run
    record_began(envs_dir(root))  # the agent's turn
    (site / "kept.py").write_text("agent\n")
    (site / "gone.py").unlink()
    (site / "pkg" / "mod.py").unlink()
    (site / "pkg").rmdir()
    (site / "new.py").write_text("agent\n")
    record_ended(envs_dir(root))
    taken = record_start_envs(root)
    assert (copy / "kept.py").read_text() == "old\n"
    assert (copy / "gone.py").read_text() == "old\n"
    assert (copy / "pkg" / "mod.py").read_text() == "old\n"
    assert not (copy / "new.py").exists()
    prefix = ".venv/lib/python3.11/site-packages/"
    assert taken.held == [prefix + n for n in ("gone.py", "kept.py", "new.py", "pkg/mod.py")]
    # the person, after the end: rewrites one, makes one anew, deletes one
    after_the_end(root)
    (site / "kept.py").write_text("person\n")
    (site / "pkg").mkdir()
    (site / "pkg" / "mod.py").write_text("person\n")
    (site / "new.py").unlink()
    taken = record_start_envs(root)
    assert (copy / "kept.py").read_text() == "person\n"
    assert (copy / "pkg" / "mod.py").read_text() == "person\n"
    # a deletion is told by its folder's change time: the person's changes there since take it
    assert taken.held == []
    assert not (copy / "gone.py").exists()


def test_a_folder_moved_while_a_run_was_live_is_held_out_though_its_files_are_old(
    tmp_path: Path,
) -> None:
    # a rename stamps the folder it moves, never the files inside: those keep their old times
    root, site, copy = venv_folder(tmp_path)
    (site / "oldpkg").mkdir()
    (site / "oldpkg" / "mod.py").write_text("old\n")
    record_start_envs(root)
    past(start_envs(root) / TAKEN)  # what the copy took is older than the run
    record_began(envs_dir(root))
    (site / "oldpkg").rename(site / "calc")
    record_ended(envs_dir(root))
    prefix = ".venv/lib/python3.11/site-packages/"
    assert record_start_envs(root).held == [prefix + "calc/mod.py", prefix + "oldpkg/mod.py"]
    assert not (copy / "calc").exists()
    assert (copy / "oldpkg" / "mod.py").read_text() == "old\n"


def test_a_killed_run_leaves_its_span_open_until_a_run_ends(tmp_path: Path) -> None:
    root, site, copy = venv_folder(tmp_path)
    record_start_envs(root)
    past(start_envs(root) / TAKEN)  # what the copy took is older than the run
    record_began(envs_dir(root))  # killed: no end
    (site / "planted.py").write_text("agent\n")
    assert load_spans(envs_dir(root)).live(os.lstat(site / "planted.py").st_ctime_ns)
    record_began(envs_dir(root))  # the next run: the span goes on
    record_ended(envs_dir(root))
    assert record_start_envs(root).held == [".venv/lib/python3.11/site-packages/planted.py"]
    assert not (copy / "planted.py").exists()


def test_a_damaged_record_of_the_spans_is_one_line_that_says_what_to_do(tmp_path: Path) -> None:
    root, _, _ = venv_folder(tmp_path)
    record_start_envs(root)
    (envs_dir(root) / "spans.json").write_text('{"format": 1, "spans": [["x"]]}')
    with pytest.raises(StateError, match="is not one it reads") as err:
        record_start_envs(root)
    assert "delete it" in str(err.value.hint)
