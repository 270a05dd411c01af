"""The installer ralph runs for the checks' environment (uv, npm), confined like the agent: in
the run's sandbox, in a build folder of its own in ralph's store, writing that folder and the
person's package cache only, with a time limit (store/environments/envbuild.py decides what it
installs)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ralph.process.launcher import Launcher
from ralph.process.request import Confinement, ProcessRequest
from ralph.process.spawn import StartError

BUILD_TIMEOUT = 900.0  # seconds for each command: a hung index or a pipe ends here
INPUT = "input"  # the build's folder it works in: all it reads of the tree is copied here
_CROSS = "\u00d7"  # the mark uv puts before an error
_NPM = re.compile(r"^npm (error|ERR!) ")  # the mark npm puts before each line of an error
_NPM_LOG = "A complete log of this run"  # where its log is: not the error
_DRAWING = _CROSS + "\u2570\u2500\u25b6\u2502\u251c "  # and the tree it draws below it
# what an installer needs of ralph's environment inside a sandbox: the proxy, the CAs
_PASSES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")
_OWN = ("UV_", "npm_config_", "NPM_CONFIG_")  # its own settings, the person's


class Installer:
    """A program run in the build's folder `target/input`, confined like the agent (the run's
    sandbox), writing `target` and the person's `cache` only, with a time limit."""

    def __init__(
        self, program: str, target: Path, env: Mapping[str, str], cache: Path, launcher: Launcher
    ) -> None:
        self.program, self.target, self.env, self.cache = program, target, env, cache
        confined = launcher.confined
        if confined.box is not None and confined.box.profile == "docker":
            # the image need not hold the installer: it runs on the host, still in its own
            # folder, reading only what ralph copied there (no code of the tree runs)
            confined = Confinement(None, confined.allow)
        self.confined, self.execute = confined, launcher.execute
        self.passes = frozenset(k for k in env if k.startswith(_OWN) or k in _PASSES)

    def __call__(self, args: list[str]) -> str | None:
        """None when it succeeded, else the line it ended on."""
        (self.target.parent / "tmp").mkdir(mode=0o700, exist_ok=True)
        request = ProcessRequest(
            (self.program, *args),
            self.target / INPUT,
            {**self.env, "TMPDIR": str(self.target.parent / "tmp")},
            timeout=BUILD_TIMEOUT,
            room=self.target,
            sealed=True,
            writes=(self.cache,),
            passes=self.passes,
            confined=self.confined,
        )
        try:
            done = self.execute(request, lambda _s, _b: None, None)
        except StartError as exc:
            return str(exc)
        if done.timed_out or done.idle_timed_out:
            return f"{Path(self.program).name} did not finish within {BUILD_TIMEOUT:.0f} s"
        if done.ok:
            return None
        text = (done.stderr_tail or done.stdout_tail).decode("utf-8", errors="replace")
        return said(text) or f"{Path(self.program).name} exited {done.exit_code}"


def said(text: str) -> str:
    """An installer's error as one line: from its first `error:` or cross-marked line to the
    end, its tree drawing gone (npm's: its `npm error` marks gone, and where its log is), at
    most 400 characters."""
    lines = [_NPM.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith(_NPM_LOG)]
    start = next((i for i, line in enumerate(lines) if line.startswith(("error:", _CROSS))), 0)
    words = " ".join(line.lstrip(_DRAWING).strip() for line in lines[start:])
    return words if len(words) <= 400 else words[:399] + "…"


def uv_program() -> str | None:
    try:
        from uv import find_uv_bin
    except ImportError:
        return shutil.which("uv")
    try:
        return str(find_uv_bin())
    except FileNotFoundError:
        return shutil.which("uv")
