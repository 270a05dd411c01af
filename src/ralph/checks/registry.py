"""Every check method by the name a spec's front matter gives it, as the plugins register them:
ralph's own methods are plugins (each module implements `ralph_check_methods`). A new method of
ralph's is one module, one line in `BUILTIN`, and its model in specs/checkconfig.py (what its
front matter may say); a person's plugin gives its model as its method's `config_model`."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.checks import external, multi_stage, mutation, revert, semantic, string_match
from ralph.checks.context import Method
from ralph.plugins.manager import plugins

BUILTIN = (string_match, external, semantic, multi_stage, mutation, revert)


def methods() -> dict[str, Method]:
    """The registered methods by name: ralph's own first; a name taken stays with the first."""
    found = plugins()
    found.register(BUILTIN)
    registered: dict[str, Method] = {}
    for plugin, offered in found.collect("ralph_check_methods"):
        for name, method in dict(offered).items():
            if name in registered:
                found.warn(plugin, f"check method {name!r} is taken")
            else:
                registered[name] = method
    return registered


# ralph's own, read once (a spec names another only through a plugin: `method_for`)
METHODS: Mapping[str, Method] = methods()


def method_for(name: str) -> Method:
    """The method a check names: ralph's own, else the plugin's that registered it (its front
    matter was read by that plugin's model: specs/plugincheck.py)."""
    own = METHODS.get(name)
    return own if own is not None else methods()[name]
