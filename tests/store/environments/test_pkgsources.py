"""store/environments/pkgsources.py: the package sources follow the rule ralph.yaml follows: a
person's
between runs, the agent's during one."""

from __future__ import annotations

from pathlib import Path

from ralph.store.environments import pkgsources
from ralph.store.person import settings

HELD = "changed during a run and no person accepted them"


def test_the_first_run_takes_the_sources_there_are(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("-f wheels\n")
    assert pkgsources.begin(tmp_path) is None
    assert pkgsources.accepted(tmp_path) == pkgsources.current(tmp_path)
    assert pkgsources.pending(tmp_path) is None


def test_a_change_between_runs_is_the_persons(tmp_path: Path) -> None:
    pkgsources.begin(tmp_path)
    pkgsources.finish(tmp_path)
    (tmp_path / "requirements.txt").write_text("-f wheels\n")  # no run was live
    assert pkgsources.begin(tmp_path) is None
    assert "-f wheels" in (pkgsources.accepted(tmp_path) or "")


def test_a_change_during_a_run_stays_held_at_the_next(tmp_path: Path) -> None:
    pkgsources.begin(tmp_path)
    (tmp_path / "requirements.txt").write_text("-f wheels\n")  # the agent's, during the run
    pkgsources.finish(tmp_path)
    line = pkgsources.begin(tmp_path)
    assert line is not None and HELD in line and "ralph accept" in line
    assert pkgsources.accepted(tmp_path) == ""
    held = pkgsources.pending(tmp_path)
    assert held is not None and "-f wheels" in held[1]


def test_a_killed_run_leaves_its_change_held(tmp_path: Path) -> None:
    pkgsources.begin(tmp_path)
    (tmp_path / "uv.toml").write_text("find-links = ['x']\n")  # no finish: the run was killed
    assert pkgsources.begin(tmp_path) is not None


def test_accept_takes_only_what_was_shown(tmp_path: Path) -> None:
    pkgsources.begin(tmp_path)
    (tmp_path / "requirements.txt").write_text("./a.whl\n")
    shown = settings.key(pkgsources.current(tmp_path))
    assert pkgsources.accept(tmp_path, shown)
    assert pkgsources.pending(tmp_path) is None
    assert not pkgsources.accept(tmp_path, "not what is there")
