"""`ralph plugins`: the plugins loaded (name, where from, version) and those left out; and the
plugins of a run: the person's as ralph.yaml keeps them, OpenTelemetry's when asked for, the
observers that hear the run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.errors import ConfigError

if TYPE_CHECKING:
    from ralph.plugins.manager import Plugins
    from ralph.run.observers import Observers
    from ralph.store.person.config import RalphConfig


def every_plugin(root: Path, config: RalphConfig) -> Plugins:
    """The process's plugins for this project: ralph's own registered (every registry read
    once), the person's less those inside the project and those ralph.yaml disables."""
    from ralph.agents.registry import registry
    from ralph.checks.registry import methods
    from ralph.plugins.manager import plugins
    from ralph.process.sandbox import backends

    found = plugins()
    found.load_installed(root, config.plugins.disable)
    registry(), methods(), backends()
    return found


def missing(found: Plugins, config: RalphConfig) -> dict[str, str]:
    """The plugins ralph.yaml requires that are not loaded, and why."""
    why = {r.name: r.reason for r in found.refused}
    return {n: why.get(n, "not installed") for n in config.plugins.require if n not in found.loaded}


def observers(root: Path, config: RalphConfig, otel: bool) -> Observers | None:
    """The run's observers: None when no plugin observes (the run then calls nothing)."""
    from ralph.plugins import otel as traces
    from ralph.run.observers import Observers

    found = every_plugin(root, config)
    scoped: tuple[str, ...] = ()
    lacking = missing(found, config)
    if lacking:
        said = "; ".join(f"{n}: {why}" for n, why in lacking.items())
        raise ConfigError(
            f"ralph.yaml requires plugins that are not loaded: {said}",
            "install each into the environment that holds ralph (its pip: pip install NAME), "
            "or drop them from plugins.require",
        )
    if traces.wanted(os.environ, otel):
        if not traces.installed():
            if otel:
                raise ConfigError(
                    "--otel: OpenTelemetry is not installed", f"{traces.INSTALL}, then run again"
                )
            found.warn(traces.NAME, f"OTEL_* asks for traces; not installed ({traces.INSTALL})")
        else:  # this run's own trace: unregistered when the run ends
            plugin = traces.Traces(parent=os.environ.get("TRACEPARENT"))
            found.register_own(plugin, traces.NAME)
            scoped = (traces.NAME,)
    return Observers(found, scoped=scoped) if Observers.wanted(found) else None


def listing(found: Plugins) -> dict[str, Any]:
    from ralph.schemas.catalog import SCHEMA_VERSION

    return {
        "schema_version": SCHEMA_VERSION,
        "plugins": [
            {
                "name": p.name,
                "source": p.source,
                "version": p.version,
                "distribution": p.distribution,
                "builtin": p.source == "built-in",
                "hooks": sorted(
                    c.name
                    for c in found.manager.get_hookcallers(found.manager.get_plugin(p.name)) or ()
                ),
            }
            for p in found.loaded.values()
        ],
        "left_out": [{"name": r.name, "reason": r.reason} for r in found.refused],
    }


def plugins_command(root: Path, *, as_json: bool) -> None:
    import sys

    from ralph.store.person.settings import settings_for

    config, held = settings_for(root, "plugins")
    if held is not None:
        print(f"warning: {held}", file=sys.stderr)
    found = every_plugin(root, config)
    data = listing(found)
    if as_json:
        print(json.dumps(data))
        return
    for p in data["plugins"]:
        where = "built-in" if p["builtin"] else f"{p['distribution'] or '?'} in {p['source']}"
        print(f"{p['name']}  {p['version']}  {where}  ({', '.join(p['hooks'])})")
    for r in data["left_out"]:
        print(f"left out: {r['name']}: {r['reason']}")
