"""store/environments/uvsettings.py: uv's settings for ralph's build are never the tree's (unless a
person
accepted its uv.toml) nor a folder's above it: the person's own as the run began, or none."""

from __future__ import annotations

from pathlib import Path

from ralph.store.environments.declared import read_declared
from ralph.store.environments.installer import INPUT
from ralph.store.environments.uvsettings import kept_person_uv, record_person_uv, uv_settings


def _target(tmp_path: Path) -> Path:
    target = tmp_path / "build"
    (target / INPUT).mkdir(parents=True)
    return target


def test_no_settings_of_the_persons_means_no_config_at_all(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "home"
    project.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    record_person_uv(project, env)
    found = uv_settings(
        project, read_declared(project), _target(tmp_path), env, kept_person_uv(project)
    )
    assert found == (["--no-config"], home / ".cache" / "uv")


def test_the_persons_settings_are_those_of_the_runs_start(tmp_path: Path) -> None:
    project, config = tmp_path / "p", tmp_path / "config"
    project.mkdir()
    (config / "uv").mkdir(parents=True)
    (config / "uv" / "uv.toml").write_text("cache-dir = '/their/cache'\n")
    env = {"XDG_CONFIG_HOME": str(config), "HOME": str(tmp_path)}
    record_person_uv(project, env)
    (config / "uv" / "uv.toml").write_text("index-url = 'http://changed'\n")  # after the start
    target = _target(tmp_path)
    found = uv_settings(project, read_declared(project), target, env, kept_person_uv(project))
    assert not isinstance(found, str)
    args, cache = found
    assert args == ["--config-file", str(target / INPUT / "uv.toml")]
    assert (target / INPUT / "uv.toml").read_text() == "cache-dir = '/their/cache'\n"
    assert cache == Path("/their/cache")


def test_the_cache_variable_wins_and_a_config_variable_is_the_persons(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    named = tmp_path / "named.toml"
    named.write_text("no-index = true\n")
    env = {"UV_CONFIG_FILE": str(named), "UV_CACHE_DIR": str(tmp_path / "c")}
    record_person_uv(project, env)
    found = uv_settings(
        project, read_declared(project), _target(tmp_path), env, kept_person_uv(project)
    )
    assert not isinstance(found, str) and found[1] == tmp_path / "c"
    assert found[0][0] == "--config-file"


def test_a_uv_toml_of_the_tree_is_used_only_as_a_source_a_person_took(tmp_path: Path) -> None:
    # uv_settings is called once the tree's sources are the accepted ones (envbuild._held)
    project = tmp_path / "p"
    project.mkdir()
    (project / "uv.toml").write_text("no-index = true\n")
    target = _target(tmp_path)
    found = uv_settings(project, read_declared(project), target, {"HOME": "/h"}, None)
    assert not isinstance(found, str) and found[0][0] == "--config-file"
    assert (target / INPUT / "uv.toml").read_text() == "no-index = true\n"


def test_the_persons_settings_are_kept_where_no_check_reads(tmp_path: Path) -> None:
    # every check may read ralph's envs/ folder: the settings (an index's token) are not there
    from ralph.store.environments.envcopy import envs_dir

    project, config = tmp_path / "p", tmp_path / "config"
    project.mkdir()
    (config / "uv").mkdir(parents=True)
    (config / "uv" / "uv.toml").write_text("index-url = 'https://user:TOKEN@idx/simple'\n")
    record_person_uv(project, {"XDG_CONFIG_HOME": str(config)})
    assert "TOKEN" in (kept_person_uv(project) or "")
    held = (
        [p for p in envs_dir(project).rglob("*") if p.is_file()]
        if envs_dir(project).exists()
        else []
    )
    assert not any("TOKEN" in p.read_text(errors="replace") for p in held)
