"""The variables that name an environment, pointed at ralph's instead of the project's (pure).

A person who activated the project's virtualenv has `VIRTUAL_ENV=/proj/.venv` and
`/proj/.venv/bin` on `PATH`: a check's `python` or `pytest` would run the project's own,
which the agent may have changed. Each of them that names a folder inside one of the
project's environments names the same place in the room instead, whose environment folders
link to ralph's copies (store/environments/envcopy.py). When ralph built an environment for the
tree's
declarations (store/environments/envbuild.py), its `bin` goes first on `PATH`, even where another
virtualenv came before the project's: the checks' `python` is that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

from ralph.rules.evidence.testconfig import ENVIRONMENT_FOLDERS


def moved(path: str, project: PurePath, envs: PurePath) -> str:
    """`path` inside one of the project's environments, in `envs`; else as it is."""
    p = PurePath(path)
    try:
        rel = p.relative_to(project)
    except ValueError:
        return path
    if rel.parts and rel.parts[0] in ENVIRONMENT_FOLDERS:
        return str(envs / rel)
    return path


def own_environment(
    env: Mapping[str, str],
    project: PurePath,
    envs: PurePath,
    built: str | None = None,
    *,
    pathsep: str,
) -> dict[str, str]:
    """`env` with its environment variables pointed at `envs`; `built`: the name of the
    virtualenv ralph built there for the tree's declarations, if it did; `pathsep`: the
    platform's separator in PATH (the caller's os.pathsep: a rule does not ask the system)."""
    out = dict(env)
    paths = [moved(p, project, envs) for p in env.get("PATH", "").split(pathsep) if p]
    venv = env.get("VIRTUAL_ENV")
    if venv:
        out["VIRTUAL_ENV"] = moved(venv, project, envs)
    if built is not None:  # first, even where another virtualenv came before the project's
        own = envs / built
        paths = [str(own / "bin"), *(p for p in paths if not PurePath(p).is_relative_to(own))]
        out["VIRTUAL_ENV"] = str(own)
    if paths:
        out["PATH"] = pathsep.join(paths)
    return out
