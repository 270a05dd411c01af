"""plugins/manager.py: the person's plugins load from the entry points of ralph's own
environment, never from the folder ralph started in; a plugin's hook that raises is named."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ralph.plugins import manager
from ralph.plugins.manager import Plugins

PLUGIN = """\
from ralph.plugins.hookspecs import hookimpl

SEEN = []


@hookimpl
def ralph_event(event):
    SEEN.append(event["event"])
"""


def _install(site: Path, module: str, name: str = "mine") -> None:
    """What `pip install` leaves: the module, and a dist-info naming its entry point."""
    (site / f"{module}.py").write_text(PLUGIN)
    info = site / f"{module}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text(f"[ralph]\n{name} = {module}\n")


def _fresh(monkeypatch: pytest.MonkeyPatch, site: Path, cwd: Path, *first: Path) -> Plugins:
    for path in (site, *first):  # the last prepended comes first
        monkeypatch.syspath_prepend(str(path))
    monkeypatch.chdir(cwd)
    manager.plugins.cache_clear()
    try:
        found = manager.plugins()
        found.load_installed(cwd)
        return found
    finally:
        manager.plugins.cache_clear()


def test_a_plugin_installed_outside_the_project_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, project = tmp_path / "site", tmp_path / "project"
    site.mkdir()
    project.mkdir()
    _install(site, "outside_plugin")
    found = _fresh(monkeypatch, site, project)
    loaded = found.loaded["mine"]
    assert (loaded.version, loaded.distribution) == ("1.2", "outside_plugin")
    assert loaded.source == str(site.resolve())
    assert found.manager.hook.ralph_event.get_hookimpls()
    sys.modules.pop("outside_plugin", None)


def test_a_plugin_inside_the_folder_ralph_started_in_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    site = project / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    _install(site, "inside_plugin")
    found = _fresh(monkeypatch, site, project)
    assert "mine" not in found.loaded
    (refused,) = [r for r in found.refused if r.name == "mine"]
    assert "which an agent may write" in refused.reason
    assert "inside_plugin" not in sys.modules  # never imported


def test_a_module_the_project_shadows_is_not_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # installed outside, but `python -m ralph` from the project puts the project first on
    # sys.path: its own file of that name is what the import would run
    site, project = tmp_path / "site", tmp_path / "project"
    site.mkdir()
    project.mkdir()
    _install(site, "shadowed_plugin")
    (project / "shadowed_plugin.py").write_text("raise SystemExit('the agent ran')\n")
    found = _fresh(monkeypatch, site, project, project)
    assert "mine" not in found.loaded
    assert any("its module inside" in r.reason for r in found.refused if r.name == "mine")


def test_a_plugin_inside_the_project_is_not_loaded_wherever_ralph_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `ralph -C project` from elsewhere: the project is checked before anything is imported
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    site = project / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    elsewhere.mkdir()
    _install(site, "far_plugin")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(elsewhere)
    manager.plugins.cache_clear()
    try:
        found = manager.plugins()
        found.load_installed(project)
    finally:
        manager.plugins.cache_clear()
    assert "mine" not in found.loaded and "far_plugin" not in sys.modules


def test_a_plugin_ralph_yaml_disables_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, project = tmp_path / "site", tmp_path / "project"
    site.mkdir()
    project.mkdir()
    _install(site, "disabled_plugin")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(project)
    manager.plugins.cache_clear()
    try:
        found = manager.plugins()
        found.load_installed(project, ["mine"])
    finally:
        manager.plugins.cache_clear()
    assert "mine" not in found.loaded
    assert "disabled_plugin" not in sys.modules  # never imported
    assert found.manager.get_plugin("mine") is None
    assert not found.manager.hook.ralph_event.get_hookimpls()
    sys.modules.pop("disabled_plugin", None)
