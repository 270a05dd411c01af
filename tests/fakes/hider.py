"""Agents that hide their edits from ralph's snapshot: `hider.py TRICK`.

Every rotation edits the project (so no DONE may count more than once in a row) and says DONE;
the first rotation first plays TRICK, a way to make git (or ralph) look away:

- `skip-worktree`, `assume-unchanged`: flag app.py in git's index, then edit it;
- `settings`: tell git to trust sizes and whole-second times (core.checkStat=minimal,
  core.trustctime=false, core.ignoreStat=true, core.untrackedCache=true, an fsmonitor hook that
  says nothing changed), then edit app.py keeping its size and restoring its times;
- `filter`: a clean filter (in .git/info/attributes and git config) that hands git the old
  content, then a same-size edit and a `git status` that refreshes the index with it;
- `rm-cached`: untrack app.py, list it in .git/info/exclude, commit, then edit it;
- `gitignore`: ignore `generated.py` in a new `lib/.gitignore`, then write generated.py;
- `ralphignore`: leave app.py out with .ralphignore, then edit it;
- `excludes-file`: name an excludes file in git config that ignores generated.py;
- `forge-rules`: as `ralphignore`, and forge the record of the person's rules ralph kept in
  `.ralph/ignore-rules.json` (an earlier ralph read it from there) to hold the new rule;
- `forge-flags`: as `skip-worktree`, and forge `.ralph/index-flags.json` to call it a person's;
- `amend`: commit every edit, amending the same commit;
- `branch`: commit every edit on a new branch each time and switch to it;
- `stash`: commit each edit, then stash a further edit away;
- `submodule`: flag lib/x.py skip-worktree inside the submodule `lib`, then edit it;
- `honest-scaffold`: (honest) ignore node_modules/ and write new files in it every rotation;
- `honest`: (honest) no edit at all;
- `honest-local`: (honest) a tool's stamp in local.cfg, a file the person flagged skip-worktree.
In a final verification (RALPH_MODE=VERIFY) every kind answers VERIFY_PASS, so that only the
snapshot stands between the trick and "verified".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FSMONITOR_HOOK = "#!/bin/sh\nprintf 'token\\0'\n"


def git(*args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=agent", "-c", "user.email=agent@example.com", *args],
        check=True,
        capture_output=True,
    )


def same_size_edit(path: Path, n: int) -> None:
    """Change one digit: the size stays, the times are put back."""
    st = path.stat()
    path.write_text(f"VALUE = {n % 10}\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def first(trick: str) -> None:
    if trick in ("skip-worktree", "assume-unchanged"):
        git("update-index", f"--{trick}", "app.py")
    elif trick == "settings":
        hook = Path(".git/hooks/lying-fsmonitor")
        hook.write_text(FSMONITOR_HOOK)
        hook.chmod(0o755)
        for key, value in (
            ("core.checkStat", "minimal"),
            ("core.trustctime", "false"),
            ("core.ignoreStat", "true"),
            ("core.untrackedCache", "true"),
            ("core.fsmonitor", str(hook.resolve())),
            ("core.fsmonitorHookVersion", "2"),
        ):
            git("config", key, value)
    elif trick == "filter":
        original = Path(".git/original-app.py")
        original.write_bytes(Path("app.py").read_bytes())
        Path(".git/info/attributes").write_text("app.py filter=hide\n")
        git("config", "filter.hide.clean", f"cat {original.resolve()}")
    elif trick == "rm-cached":
        git("rm", "-q", "--cached", "app.py")
        with Path(".git/info/exclude").open("a") as f:
            f.write("app.py\n")
        git("commit", "-qm", "untrack app.py")
    elif trick == "gitignore":
        Path("lib").mkdir(exist_ok=True)
        Path("lib/.gitignore").write_text("*\n")
    elif trick == "ralphignore":
        Path(".ralphignore").write_text("app.py\n")
    elif trick == "forge-rules":
        Path(".ralphignore").write_text("app.py\n")
        rules = {".ralphignore": "app.py\n", ".gitignore": ".ralph/\n"}
        Path(".ralph/ignore-rules.json").write_text(json.dumps({"rules": rules}))
    elif trick == "forge-flags":
        git("update-index", "--skip-worktree", "app.py")
        flags = {"person": ["app.py"], "seen": ["app.py"]}
        Path(".ralph/index-flags.json").write_text(json.dumps(flags))
    elif trick == "excludes-file":
        Path(".git/hidden-excludes").write_text("generated.py\n")
        git("config", "core.excludesFile", str(Path(".git/hidden-excludes").resolve()))
    elif trick == "submodule":
        subprocess.run(["git", "update-index", "--skip-worktree", "x.py"], cwd="lib", check=True)
    elif trick == "honest-scaffold":
        with Path(".gitignore").open("a") as f:
            f.write("node_modules/\n")


def edit(trick: str, n: int) -> None:
    if trick in ("settings", "filter"):
        same_size_edit(Path("app.py"), n)
        git("status", "--porcelain")  # the index takes the file's new times as "clean"
    elif trick == "gitignore":
        Path("lib/generated.py").write_text(f"VALUE = {n}\n")
    elif trick == "excludes-file":
        Path("generated.py").write_text(f"VALUE = {n}\n")
    elif trick == "submodule":
        Path("lib/x.py").write_text(f"VALUE = {n}\n")
    elif trick == "honest-scaffold":
        Path("node_modules/pkg").mkdir(parents=True, exist_ok=True)
        Path(f"node_modules/pkg/file{n}.js").write_text(f"// {n}\n")
    elif trick == "honest-local":
        Path("local.cfg").write_text(f"stamp {n}\n")
    elif trick != "honest":
        Path("app.py").write_text(f"VALUE = {n}\n")
    if trick == "amend":
        git("commit", "-qa", "--amend", "-m", "work")
    elif trick == "branch":
        git("checkout", "-qb", f"try{n}")
        git("commit", "-qam", f"try {n}")
    elif trick == "stash":
        git("commit", "-qam", f"step {n}")
        Path("app.py").write_text(f"VALUE = {n}{n}\n")
        git("stash", "-q")


def main() -> int:
    trick = sys.argv[1]
    sys.stdin.read()
    if os.environ.get("RALPH_MODE") == "VERIFY":
        print("<ralph>VERIFY_PASS</ralph>")
        return 0
    n = int(os.environ.get("RALPH_ITERATION", "1"))
    if n == 1:
        first(trick)
    edit(trick, n)
    print("Done, and nothing changed.")
    print("<ralph>DONE</ralph>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
