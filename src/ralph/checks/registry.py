"""Every check method by the name a spec's front matter gives it, as the plugins register them:
ralph's own methods are plugins (each module implements `ralph_check_methods`). A new method is
one module, one line in `BUILTIN`, and its model in specs/checkconfig.py (what its front
matter may say)."""

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


# read once: a spec's front matter names only the methods its models know (specs/checkconfig.py)
METHODS: Mapping[str, Method] = methods()
