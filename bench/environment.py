"""`make bench`: what the environment guard (checks/envguard.py) costs at a DONE: the scan of a
project's `.venv` site-packages of 1k, 5k and 20k files against the record of the run's start,
and the record itself (once per run). Best of 5; the target is tens of ms at 5k files."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from ralph.checks.envguard import EnvGuard
from ralph.specs.frontmatter import parse_front_matter

SIZES = (1_000, 5_000, 20_000)
PER_PACKAGE = 50  # files per distribution, in folders of 10, as real packages are


def site_packages(root: Path, files: int) -> None:
    site = root / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = site / "site-packages"
    (root / ".venv" / "pyvenv.cfg").parent.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    for n in range(files // PER_PACKAGE):
        pkg = site / f"pkg{n}"
        info = site / f"pkg{n}-1.0.dist-info"
        info.mkdir(parents=True)
        names = [f"pkg{n}/sub{i // 10}/m{i}.py" for i in range(PER_PACKAGE - 2)]
        for name in names:
            (site / name).parent.mkdir(parents=True, exist_ok=True)
            (site / name).write_text("x = 1\n")
        (info / "METADATA").write_text(f"Name: pkg{n}\n")
        (info / "RECORD").write_text("".join(f"{name},,\n" for name in names))
        pkg.mkdir(exist_ok=True)


def best(run: object, times: int = 5) -> float:
    assert callable(run)
    out = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        out.append(time.perf_counter() - started)
    return min(out) * 1000


def main() -> None:
    checked = [parse_front_matter("PROMPT.md", "---\ntest_command: 'true'\n---\n# x\n")]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")  # a store of the bench's own
        env = {"PATH": "", "HOME": tmp}
        for size in SIZES:
            root = Path(tmp) / f"p{size}"
            site_packages(root, size)
            guard = EnvGuard(root)
            record = best(lambda g=guard: g.start(env, checked, keep=False))
            done = best(lambda g=guard: g.refusal(env))
            print(
                f"environment guard, {size:>6} files: record at start {record:6.1f} ms, "
                f"check at a DONE {done:6.1f} ms"
            )


if __name__ == "__main__":
    main()
