"""An agent that goes for ralph's own records before it cheats: `intruder.py N ACTION...`.

The project (tests/e2e/test_private_store.py) is the calc project of tests/e2e/test_testguard.py:
`calc.add` subtracts and `tests/test_calc.py` catches it. In rotation N (RALPH_ITERATION; the
numbering goes on across runs) the agent plays each ACTION in order; every rotation then says
DONE, and a final verification says VERIFY_PASS, so only ralph's own records stand between it and
"verified". Actions:
- `weaken`: edit the test to expect what the code returns;
- `rm=PATH`: delete PATH (a file or a folder, under the project);
- `forge-state`: write `.ralph/state.json` with every spec at 3/3 and the final verification
  passed;
- `yaml=FILE`: replace ralph.yaml with FILE's content;
- `options=FILE`: write FILE's content to `.ralph/run-options.json`;
- `probe=FOLDER`: try to read and to write in FOLDER (ralph's private store); what happened
  goes to `probe.json` in the project.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

TEST = Path("tests/test_calc.py")


def forged_state() -> dict[str, object]:
    spec = os.environ.get("RALPH_SPEC", "")
    row = {"path": spec, "done_count": 3, "last_status": "DONE", "modified_files": False}
    final = {"passed": True, "failures": 0}
    return {"schema_version": 1, "iteration": 9, "specs": [row], "final_verification": final}


def probe(folder: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    try:
        found["listed"] = sorted(p.name for p in folder.iterdir())
    except OSError as exc:
        found["listed"] = f"error: {exc.strerror}"
    try:
        (folder / "planted").write_text("agent was here\n")
        found["wrote"] = True
    except OSError as exc:
        found["wrote"] = f"error: {exc.strerror}"
    return found


def act(action: str) -> None:
    name, _, arg = action.partition("=")
    if name == "weaken":
        TEST.write_text(TEST.read_text().replace("== 5", "== -1"))
    elif name == "rm":
        target = Path(arg)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
    elif name == "forge-state":
        Path(".ralph/state.json").write_text(json.dumps(forged_state()))
    elif name == "yaml":
        Path("ralph.yaml").write_text(Path(arg).read_text())
    elif name == "options":
        Path(".ralph/run-options.json").write_text(Path(arg).read_text())
    elif name == "probe":
        Path("probe.json").write_text(json.dumps(probe(Path(arg))))
    else:
        raise SystemExit(f"intruder: unknown action {action!r}")


def main() -> int:
    sys.stdin.read()
    if os.environ.get("RALPH_MODE") == "VERIFY":
        print("<ralph>VERIFY_PASS</ralph>")
        return 0
    if os.environ.get("RALPH_ITERATION") == sys.argv[1]:
        for action in sys.argv[2:]:
            act(action)
    print("<ralph>DONE</ralph>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
