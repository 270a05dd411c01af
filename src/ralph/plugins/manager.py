"""The process's plugin manager: ralph's own plugins, registered by the registries that list
them, and the person's, loaded from the entry points (group "ralph") of the environment ralph
itself is installed in.

A person's plugin is loaded only from files outside the project (and outside the folder ralph
was started in): `python -m ralph` run from a project puts that folder first on sys.path, and
whatever lives there, its `.venv` included, is the agent's to write. A plugin's call that
raises or hangs is left out with one line naming it; ralph's own raise as any code does.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from ralph.plugins import hookspecs
from ralph.plugins.contained import LIMIT, Failed, call_once

BUILTIN = "built-in"
_DISABLED = "disabled by ralph.yaml (plugins.disable)"


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin as `ralph plugins` lists it."""

    name: str
    source: str  # "built-in", or where its distribution is installed
    version: str  # ralph's own for a built-in
    distribution: str | None = None


@dataclass(frozen=True)
class Refused:
    """An installed plugin ralph did not load, and why."""

    name: str
    reason: str


@dataclass
class Plugins:
    manager: pluggy.PluginManager
    loaded: dict[str, Plugin]
    refused: list[Refused]
    said: set[str]  # the warnings already printed (one line each)
    roots: set[Path] = field(default_factory=set)  # the projects the person's were checked for

    def load_installed(self, root: Path, disabled: Collection[str] = ()) -> None:
        """The person's plugins, for the project at `root`: each entry point of ralph's own
        environment whose files are outside `root` and the folder ralph started in, and that
        ralph.yaml does not disable; checked before anything of it is imported."""
        root = root.resolve()
        if self.roots and root not in self.roots:  # another project of the process (tests)
            self.outside(root)
        elif not self.roots:
            for point in _entry_points():
                if point.name in disabled:
                    self.refused.append(Refused(point.name, _DISABLED))
                else:
                    _load(self, point, (Path.cwd(), root))
        self.roots.add(root)
        for name in disabled:
            self.leave_out(name, _DISABLED)

    def register(self, modules: Iterable[ModuleType]) -> None:
        """ralph's own plugins (once each): the registries that list them call this first."""
        from ralph import __version__

        for module in modules:
            if self.manager.get_plugin(module.__name__) is None:
                self.manager.register(module, name=module.__name__)
                self.loaded[module.__name__] = Plugin(module.__name__, BUILTIN, __version__)

    def register_own(self, plugin: object, name: str) -> None:
        """One of ralph's own plugins made for a run (its traces)."""
        from ralph import __version__

        if self.manager.get_plugin(name) is not None:  # an earlier run's, left behind
            self.manager.unregister(name=name)
        self.manager.register(plugin, name=name)
        self.loaded[name] = Plugin(name, BUILTIN, __version__)

    def drop_own(self, name: str) -> None:
        """One of ralph's own plugins made for a run, gone once the run is over."""
        if self.manager.get_plugin(name) is not None:
            self.manager.unregister(name=name)
        self.loaded.pop(name, None)

    def collect(self, hook: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """What each plugin's `hook` returned, ralph's own first (in their order of
        registration), the person's after; a person's that raised, hung or is blocked is
        left out and named once."""
        caller = getattr(self.manager.hook, hook)
        impls = caller.get_hookimpls()
        own = [i for i in impls if self.is_builtin(i.plugin_name)]
        theirs = [i for i in impls if not self.is_builtin(i.plugin_name)]
        found: list[tuple[str, Any]] = []
        for impl in own:
            found.append((impl.plugin_name, impl.function(**kwargs)))
        for impl in theirs:
            result = call_once(impl.function, kwargs, LIMIT)
            if isinstance(result, Failed):
                self.warn(impl.plugin_name, f"{hook} {result.reason}")
            elif result is not None:
                found.append((impl.plugin_name, result))
        return found

    def is_builtin(self, name: str) -> bool:
        plugin = self.loaded.get(name)
        return plugin is not None and plugin.source == BUILTIN

    def warn(self, name: str, what: str, *, printed: bool = True) -> str:
        """One line naming the plugin (printed once to stderr unless the caller shows it)."""
        line = f"plugin {name}: {what}; left out, the run goes on"
        if printed and line not in self.said:
            self.said.add(line)
            print(f"ralph: {line}", file=sys.stderr, flush=True)
        return line

    def leave_out(self, name: str, reason: str) -> None:
        """Unregister a person's plugin loaded before (another project of the process)."""
        if name in self.loaded and not self.is_builtin(name):
            plugin = self.manager.get_plugin(name)
            if plugin is not None:
                self.manager.unregister(plugin, name=name)
            del self.loaded[name]
            self.refused.append(Refused(name, reason))

    def outside(self, root: Path) -> None:
        """Leave out every person's plugin whose files are inside `root` (a project)."""
        for name, plugin in list(self.loaded.items()):
            if plugin.source != BUILTIN and _inside(Path(plugin.source), root):
                why = f"installed inside {root}, which an agent may write ({plugin.source})"
                self.leave_out(name, why)


@cache
def plugins() -> Plugins:
    """The process's plugins: the hook specifications; ralph's own are registered by the
    registries that list them as they are first read, the person's by `load_installed` once
    the project is known (commands/plugins.py)."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return Plugins(pm, {}, [], set())


def _entry_points() -> list[metadata.EntryPoint]:
    return sorted(metadata.entry_points(group=hookspecs.PROJECT), key=lambda p: p.name)


def _load(found: Plugins, point: metadata.EntryPoint, folders: tuple[Path, ...]) -> None:
    dist = point.dist
    where = _location(dist)
    if where is None:
        found.refused.append(Refused(point.name, "no distribution to tell where it lives"))
        return
    origin = _origin(point.module)
    for path, what in ((where, "installed"), (origin, "its module")):
        inside = [f for f in folders if path is None or _inside(path, f)]
        if inside:
            why = f"{what} inside {inside[0]}, which an agent may write ({path})"
            found.refused.append(Refused(point.name, why))
            return
    if found.manager.get_plugin(point.name) is not None or point.name in found.loaded:
        found.refused.append(Refused(point.name, "a plugin of that name is already loaded"))
        return
    try:
        plugin = point.load()
        found.manager.register(plugin, name=point.name)
    except Exception as exc:
        found.refused.append(Refused(point.name, f"failed to load: {type(exc).__name__}: {exc}"))
        found.warn(point.name, f"failed to load: {type(exc).__name__}: {exc}")
        return
    version = dist.version if dist is not None else "?"
    name = dist.metadata["Name"] if dist is not None else None
    found.loaded[point.name] = Plugin(point.name, str(where), version, name)


def _location(dist: metadata.Distribution | None) -> Path | None:
    """The folder a distribution is installed in (its site-packages), resolved."""
    if dist is None:
        return None
    try:
        return Path(str(dist.locate_file(""))).resolve()
    except (OSError, TypeError, NotImplementedError):
        return None


def _origin(module: str) -> Path | None:
    """Where `module`'s top package would be imported from, without importing it."""
    try:
        spec = find_spec(module.split(".", maxsplit=1)[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.origin not in (None, "namespace"):
        return Path(spec.origin).resolve()
    locations = list(spec.submodule_search_locations or ())
    return Path(locations[0]).resolve() if locations else None


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())
