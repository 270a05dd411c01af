"""Fake agent that makes a repository inside the project whose own config names a program for
ralph's git to run: `nester.py KIND SENTINEL`. The program (a clean filter for every file of
that repository) writes the file SENTINEL, outside the project: if it appears, ralph ran it.

- `submodule`: the repository is registered as a submodule (`.gitmodules`, with an `ignore =
  none` that outranks git's config default, and a gitlink in the index; the index write may be
  refused by a sandbox, which it says);
- `nested`: a plain repository with its own `.git`;
- `honest`: edits nothing.
Every rotation but `honest`'s changes a file of that repository keeping its size, with a later
time, so that git must read it through the filter to tell, and says DONE: a DONE may never
count twice in a row. In a final verification (RALPH_MODE=VERIFY) it answers VERIFY_PASS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LIB = Path("vendor/lib")


def git(*args: str, cwd: Path = Path()) -> subprocess.CompletedProcess[str]:
    who = ("-c", "user.name=agent", "-c", "user.email=agent@example.com")
    return subprocess.run(
        ["git", *who, *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def make(kind: str, sentinel: str) -> None:
    LIB.mkdir(parents=True)
    git("init", "-q", cwd=LIB)
    (LIB / "lib.txt").write_text("VALUE = 0\n")
    (LIB / ".gitattributes").write_text("* filter=evil\n")
    git("add", "-A", cwd=LIB)
    git("commit", "-qm", "lib", cwd=LIB)
    script = (LIB / ".git" / "evil.sh").resolve()
    script.write_text(f"#!/bin/sh\ntouch '{sentinel}'\ncat\n")
    script.chmod(0o755)
    git("config", "filter.evil.clean", str(script), cwd=LIB)
    git("config", "filter.evil.required", "true", cwd=LIB)
    if kind == "submodule":
        Path(".gitmodules").write_text(
            f'[submodule "lib"]\n\tpath = {LIB}\n\turl = ./{LIB}\n\tignore = none\n'
        )
        head = git("rev-parse", "HEAD", cwd=LIB).stdout.strip()
        added = git("update-index", "--add", "--cacheinfo", f"160000,{head},{LIB}")
        print("registered the submodule" if added.returncode == 0 else added.stderr.strip())


def edit(n: int) -> None:
    path = LIB / "lib.txt"
    st = path.stat()
    path.write_text(f"VALUE = {n % 10}\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def main() -> int:
    kind, sentinel = sys.argv[1], sys.argv[2]
    sys.stdin.read()
    if os.environ.get("RALPH_MODE") == "VERIFY":
        print("<ralph>VERIFY_PASS</ralph>")
        return 0
    if kind != "honest":
        if not LIB.exists():
            make(kind, sentinel)
        edit(int(os.environ.get("RALPH_ITERATION", "1")))
    print("<ralph>DONE</ralph>", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
