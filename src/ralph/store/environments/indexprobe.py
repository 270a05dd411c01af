"""Can the package index be reached? `ralph doctor` asks when the tree declares dependencies:
uv resolves the first one, with the person's settings and a fresh look at the index (never the
tree's settings, in a folder of its own), as ralph's build of the checks' environment would."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.process.launcher import PLAIN
from ralph.rules.environment.installerfault import unreachable
from ralph.store.environments.declared import read_declared
from ralph.store.environments.installer import INPUT, Installer, uv_program
from ralph.store.environments.uvsettings import person_uv, uv_settings


@dataclass(frozen=True)
class Probe:
    ok: bool
    detail: str


def probe_index(root: Path, env: Mapping[str, str]) -> Probe | None:
    """None when the tree declares no dependency by name."""
    declared = read_declared(root)
    names = declared.declaration.installable()
    if not names:
        return None
    uv = uv_program()
    if uv is None:
        return Probe(False, "uv is not installed beside ralph")
    with tempfile.TemporaryDirectory(prefix="ralph-index-") as tmp:
        target = Path(tmp) / "probe"
        (target / INPUT).mkdir(parents=True)
        settings = uv_settings(root, declared, target, env, person_uv(env))
        if isinstance(settings, str):
            return Probe(False, settings)
        config, cache = settings
        (target / INPUT / "requirements.txt").write_text(f"{names[0]}\n")
        args = ["pip", "install", "--dry-run", "--no-deps", "--refresh", "-q", *config]
        args += ["--cache-dir", str(cache), "--python", sys.executable, "-r", "requirements.txt"]
        why = Installer(uv, target, env, cache, PLAIN)(args)
    if why is None:
        return Probe(True, f"the package index answers (uv resolves {names[0]})")
    if unreachable(why):
        return Probe(False, f"the package index cannot be reached: {why}")
    return Probe(True, f"the package index answers ({why})")
