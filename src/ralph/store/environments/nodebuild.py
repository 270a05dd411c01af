"""The checks' `node_modules` for what the tree declares, when `package.json` or its lockfile
differ from the run's start: built by `npm ci`, confined like the agent
(store/environments/installer.py).

npm never reads the tree. ralph writes in the build's own folder what `npm ci` reads: the part
of package.json it reads and the lockfile, as ralph read them (store/environments/nodedeclared.py),
and the
files of the sources a person accepted (a tarball; the tree's `.npmrc`), copied through the one
reader. That folder is not among the checks' environments: a check never sees it, nor the
person's settings copied there for the build. npm runs there with the person's settings as the
run began (`--userconfig`: a copy of their `~/.npmrc`, or none) and their cache, and with
`--ignore-scripts`: no install script of any package runs. The `node_modules` it makes is what
the checks' rooms link."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from ralph.errors import RalphError
from ralph.process.launcher import Launcher
from ralph.process.treecode import NODE_MODULES
from ralph.rules.environment.nodedeclarations import PACKAGE_JSON
from ralph.store.disk.reader import read_bytes
from ralph.store.environments.declared import MAX_ARTIFACT, UNREAD
from ralph.store.environments.envbins import node_shadowing
from ralph.store.environments.envcopy import START_NODE, record_start_digest, start_envs
from ralph.store.environments.installer import INPUT, Installer
from ralph.store.environments.nodedeclared import NodeDeclared, read_node, start_notes
from ralph.store.environments.npmsettings import (
    npm_cache,
    npm_dir,
    npm_program,
    person_npmrc,
    record_person_npm,
    registry,
)
from ralph.store.rooms.roomsync import wipe

USERCONFIG = "userconfig"  # the person's npm settings, for the build only
NPM_CI = ("ci", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier")


def record_node_start(project: Path, env: Mapping[str, str], *, keep: bool) -> list[str]:
    """When a run starts: the person's npm settings, what `node_modules` was made for (the
    live-span rule of store/environments/envcopy.py), and what to say of the project's
    `node_modules`."""
    record_person_npm(project, env)
    node = read_node(project, registry(project))
    record_start_digest(project, START_NODE, node.digest, node.files, keep=keep)
    unread = [f"{UNREAD}: {line}" for line in node.declaration.unread]
    return [*start_notes(project, node), *unread]


def build_node(
    project: Path,
    tree: Path,
    node: NodeDeclared,
    target: Path,
    env: Mapping[str, str],
    launcher: Launcher,
) -> str | None:
    """`target/node_modules`, made by `npm ci` from what `tree` declares; None when it was,
    else why not, in one line."""
    npm = npm_program(env)
    if npm is None:
        return "npm is not installed: install Node.js with npm, or undo the change to package.json"
    if node.declaration.lockfile is None:
        return (
            "package.json changed and the tree has no package-lock.json: ralph builds "
            "node_modules with npm ci from both (run npm install to make it)"
        )
    # npm works in a folder beside the checks' environments, never shown to a check: the
    # person's settings it reads may hold their registry's token
    folder = npm_dir(project) / target.name
    wipe(folder)
    (folder / INPUT).mkdir(mode=0o700, parents=True)
    try:
        why = _ci(npm, project, tree, node, folder, env, launcher)
        if why is None:
            why = node_shadowing(
                folder / INPUT / NODE_MODULES, start_envs(project) / NODE_MODULES, env
            )
        if why is None:
            (folder / INPUT / NODE_MODULES).rename(target / NODE_MODULES)
        return why
    finally:
        wipe(folder)


def _ci(
    npm: str,
    project: Path,
    tree: Path,
    node: NodeDeclared,
    folder: Path,
    env: Mapping[str, str],
    launcher: Launcher,
) -> str | None:
    """`npm ci` in `folder/input`, on what ralph writes there; None when it made
    node_modules, else why not."""
    d = node.declaration
    work = folder / INPUT
    (work / PACKAGE_JSON).write_text(json.dumps(d.manifest, indent=2) + "\n")
    (work / str(d.lockfile)).write_bytes(node.lock)
    for source in d.sources:
        for path in source.paths:
            why = _copy(tree, path, work)
            if why is not None:
                return f"{source.describe()}: {why}"
    npmrc = person_npmrc(project)
    userconfig = folder / USERCONFIG
    if npmrc is not None:
        userconfig.touch(mode=0o600)
        userconfig.write_text(npmrc)
    cache = npm_cache(env, npmrc)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make npm's cache {cache}: {exc.strerror or exc}"
    config = str(userconfig) if npmrc is not None else os.devnull
    args = [*NPM_CI, "--userconfig", config, "--cache", str(cache)]
    failed = Installer(npm, folder, env, cache, launcher)(args)
    if failed is None and not (work / NODE_MODULES).is_dir():
        (work / NODE_MODULES).mkdir()  # a package.json that declares nothing: npm makes none
    return failed


def _copy(tree: Path, path: str, work: Path) -> str | None:
    """The tree's file `path` copied to the same place in the build's folder, or why not."""
    here = tree / path
    if here.is_dir() and not here.is_symlink():
        return "a folder; ralph builds node_modules from the registry and tarballs only"
    try:
        data = read_bytes(here, limit=MAX_ARTIFACT, root=tree)
    except (OSError, RalphError) as exc:
        return f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    copy = work / path
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(data)
    return None
