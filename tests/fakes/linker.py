"""A hostile agent: plants symbolic links where ralph writes or reads, then signals.

`linker.py` reads its plan from the environment: LINKS is a JSON object mapping a path
relative to the project (its working folder) to the link's target; what is at the path is
moved aside first (a folder to `<path>.moved`, a file deleted). A path starting `$STATE/` is
relative to RALPH_STATE_DIR and may hold a `*` (a lane's folder, say). SIGNAL (default
CONTINUE) is printed last (VERIFY_PASS in a final verification), and the exit code is EXIT
(default 0). RALPH_ITERATION other than LINK_AT (default 1) plants nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path


def main() -> int:
    if os.environ.get("RALPH_ITERATION", "1") == os.environ.get("LINK_AT", "1"):
        for rel, target in json.loads(os.environ.get("LINKS", "{}")).items():
            for path in _paths(rel):
                _plant(path, target)
    signal = "VERIFY_PASS" if os.environ.get("RALPH_MODE") == "VERIFY" else None
    print(f"working\n<ralph>{signal or os.environ.get('SIGNAL', 'CONTINUE')}</ralph>")
    return int(os.environ.get("EXIT", "0"))


def _paths(rel: str) -> list[Path]:
    if not rel.startswith("$STATE/"):
        return [Path(rel)]
    return sorted(Path(os.environ["RALPH_STATE_DIR"]).glob(rel.removeprefix("$STATE/")))


def _plant(path: Path, target: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.move(str(path), f"{path}.moved")
    elif path.is_symlink() or path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


if __name__ == "__main__":
    raise SystemExit(main())
