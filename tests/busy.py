"""Run a command with every core kept busy: `python -m tests.busy [--per-core N] COMMAND...`.

One spinning process per core (N per core with --per-core) starts first; the command runs; the
spinners are killed by their PIDs when it ends, however it ends (an error, Ctrl-C, SIGTERM). Its
exit code is the command's. `make test-loaded` runs `make test` this way: the suite must not
depend on how fast the machine is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import FrameType

SPIN = "while True: pass"


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def main(argv: list[str]) -> int:
    per_core = 1
    if argv[:1] == ["--per-core"]:
        per_core, argv = int(argv[1]), argv[2:]
    if not argv:
        print("usage: python -m tests.busy [--per-core N] COMMAND...", file=sys.stderr)
        return 2

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    spinners: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(cores() * per_core):
            spinners.append(subprocess.Popen([sys.executable, "-c", SPIN]))
        print(f"busy: {len(spinners)} spinners on {cores()} cores", file=sys.stderr, flush=True)
        return subprocess.run(argv, check=False).returncode
    except KeyboardInterrupt:
        return 130
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
