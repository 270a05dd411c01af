"""rules/environment/envpaths.py: the variables that name one of the project's environments are
pointed at
ralph's copies; everything else, and every path outside those folders, stays as it was."""

from __future__ import annotations

from pathlib import PurePosixPath

from ralph.rules.environment.envpaths import moved, own_environment

PROJECT = PurePosixPath("/proj")
ENVS = PurePosixPath("/store/envs")


def test_a_path_inside_a_project_environment_moves_to_ralphs_copy() -> None:
    assert moved("/proj/.venv/bin", PROJECT, ENVS) == "/store/envs/.venv/bin"


def test_paths_outside_the_environments_stay() -> None:
    # the control: the project's own folders and the system's are not environments
    assert moved("/proj/src", PROJECT, ENVS) == "/proj/src"
    assert moved("/usr/bin", PROJECT, ENVS) == "/usr/bin"
    assert moved("/proj", PROJECT, ENVS) == "/proj"


def test_an_activated_virtualenv_names_ralphs_copy() -> None:
    env = {"VIRTUAL_ENV": "/proj/.venv", "PATH": "/proj/.venv/bin:/usr/bin", "HOME": "/h"}
    out = own_environment(env, PROJECT, ENVS, pathsep=":")
    assert out == {
        "VIRTUAL_ENV": "/store/envs/.venv",
        "PATH": "/store/envs/.venv/bin:/usr/bin",
        "HOME": "/h",
    }
    assert env["PATH"] == "/proj/.venv/bin:/usr/bin"  # the caller's mapping is not changed


def test_a_built_environment_goes_first_and_is_named_once() -> None:
    out = own_environment({"PATH": "/usr/bin"}, PROJECT, ENVS, ".venv", pathsep=":")
    assert out["PATH"] == "/store/envs/.venv/bin:/usr/bin"
    assert out["VIRTUAL_ENV"] == "/store/envs/.venv"
    named = own_environment({"PATH": "/proj/.venv/bin"}, PROJECT, ENVS, ".venv", pathsep=":")
    assert named["PATH"] == "/store/envs/.venv/bin"  # named once
    # another virtualenv before the project's: the built one still comes first
    env = {"PATH": "/other/venv/bin:/proj/.venv/bin:/usr/bin"}
    out = own_environment(env, PROJECT, ENVS, ".venv", pathsep=":")
    assert out["PATH"] == "/store/envs/.venv/bin:/other/venv/bin:/usr/bin"


def test_the_platforms_separator_splits_path() -> None:
    env = {"PATH": "/proj/.venv/bin;/usr/bin"}
    assert own_environment(env, PROJECT, ENVS, pathsep=";") == {
        "PATH": "/store/envs/.venv/bin;/usr/bin"
    }
