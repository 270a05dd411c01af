"""The line that says which files of the project's environments stay out of the checks'
because they changed while a run was live (store/environments/envcopy.py), pure.

Bytecode an agent's own test runs compiled there is left out as well, and not named: it is
no one's change, and naming it at every run would bury the line that matters.
"""

from __future__ import annotations

from collections.abc import Sequence

SHOWN = 3


def held_line(held: Sequence[str]) -> str:
    """One line for the files held out ("<environment>/<path>"), or "" when there are none
    worth naming."""
    named = [p for p in held if "/__pycache__/" not in p and not p.endswith(".pyc")]
    if not named:
        return ""
    per: dict[str, int] = {}
    for path in named:
        env = path.split("/", 1)[0]
        per[env] = per.get(env, 0) + 1
    parts = [f"{n} of {env}" for env, n in per.items()]
    files = "files" if len(named) > 1 else "file"
    counts = f"{parts[0].replace(' of ', f' {files} of ', 1)}" + "".join(
        f" and {part}" for part in parts[1:]
    )
    more = f" and {len(named) - SHOWN} more" if len(named) > SHOWN else ""
    shown = ", ".join(named[:SHOWN]) + more
    return (
        f"{counts} changed while a ralph run was live stay out of the checks' environment "
        f"({shown}): if that change is yours, make it again now that no run is live "
        "(reinstall the package, or recreate the environment)"
    )
