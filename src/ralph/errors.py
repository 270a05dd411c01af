"""Errors that reach the user as one line and a hint, and the exit codes of the contract."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from enum import IntEnum
from typing import Any


class ExitCode(IntEnum):
    """Exit codes of `ralph run` (and of the other commands where they apply)."""

    OK = 0  # every spec verified
    ERROR = 1  # bad config, missing agent, corrupt state, another run is live, internal error
    USAGE = 2  # bad command-line usage
    MAX_ITERATIONS = 3  # --max-iterations (or another budget) reached
    AGENTS_EXHAUSTED = 4  # every agent is rate-limited or out of quota
    NEEDS_HUMAN = 5  # STUCK, QUESTION, escalation aborted
    VERIFICATION_FAILED = 6  # final verification failed too many times
    INTERRUPTED = 130  # Ctrl-C, SIGTERM, cancel


# Any command whose reader went away (`ralph status --json | head`): 128 + SIGPIPE, the status of
# a Unix tool that stops on a closed pipe; nothing is printed.
BROKEN_PIPE = 141

# The manual. A hint that a page explains better names it: the docs/ folder of the repository
# (also built as a site by `make docs`); tests/test_docs_site.py checks that each page named exists.
DOCS_URL = "https://github.com/ralph-spec-loop/ralph-spec-loop/blob/main/docs/"


def docs_page(page: str) -> str:
    """Where page `page` (a path under docs/, such as `reference/ralph-yaml.md`) is read."""
    return DOCS_URL + page


def report(exc: BaseException, printable: Callable[[str], str]) -> int:
    """Print a RalphError, an OSError or Ctrl-C as one `error:` line and a `hint:` on stderr;
    each line through `printable` (rules/text/printable.py: a message may quote any name)."""
    import sys

    if isinstance(exc, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    if isinstance(exc, BrokenPipeError):
        return broken_pipe()
    if isinstance(exc, OSError) and not isinstance(
        exc, RalphError
    ):  # a full disk, a permission taken away mid-run
        import errno

        # A rename names its temporary file first: the file that matters is the target.
        name = exc.filename2 if str(exc.filename).endswith(".tmp") else exc.filename
        where = f"{name}: " if name else ""
        print(printable(f"error: {where}{exc.strerror or exc}"), file=sys.stderr)
        if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
            hint = "free some disk space, then run again"
        elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            hint = "give the file (or its folder) write permission back, then run again"
        elif exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.ENOENT):
            hint = "a folder on the way is missing or in the file's place: fix it, then run again"
        else:
            hint = "check the file's folder, free disk space and permissions, then run again"
        print(f"hint: {hint}", file=sys.stderr)
        return int(ExitCode.ERROR)
    assert isinstance(exc, RalphError)
    print(printable(f"error: {exc.message}"), file=sys.stderr)
    if exc.hint:
        print(printable(f"hint: {exc.hint}"), file=sys.stderr)
    return int(exc.exit_code)


def broken_pipe() -> int:
    """Stop quietly when the reader of stdout went away: no message (there is nobody to read
    it), and stdout pointed at the null device, so the flush at exit cannot complain again."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured stdout)
        pass
    return BROKEN_PIPE


class RalphError(Exception):
    """An error the user can act on: `message` says what and where, `hint` what to do."""

    exit_code: ExitCode = ExitCode.ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class ConfigError(RalphError):
    """ralph.yaml or a command-line option is invalid."""


class SpecError(RalphError):
    """No specs, or a spec that cannot be read."""


class StateError(RalphError):
    """state.json (or another file under .ralph/) is corrupt or from a newer ralph."""


class RepositoryError(RalphError):
    """ralph's git would reach a repository other than the one the run started in (a redirected
    `commondir`/`gitdir`/`.git`, a lane's worktree that is no longer ralph's): the run stops,
    since a snapshot that cannot be trusted must not pass for one that failed."""


class AgentError(RalphError):
    """The agent cannot be started (missing executable, bad command)."""


class AgentsExhausted(RalphError):
    """Every agent of the pool is rate-limited or out of quota, with no known time to wait for."""

    exit_code = ExitCode.AGENTS_EXHAUSTED


class SandboxError(RalphError):
    """The sandbox asked for cannot start here: the run refuses rather than run unsandboxed."""


class UnsafePath(RalphError):
    """A file ralph would write, create, delete or read in the project is reached through a
    link (or is not a regular file), or a read leads outside the project: refused, exit 1,
    before anything outside the project is touched (docs/explanation/files-and-links.md)."""


class FileProblem(StateError, OSError):
    """A file of `.ralph/` cannot be written, said as what is actually wrong (its folder is
    gone, read-only, a folder where the file goes, the disk full). An OSError too, so a
    best-effort write (run.json) still passes over it."""


class LockError(RalphError):
    """Another ralph run holds this project."""


class UsageError(RalphError):
    """Bad command-line usage that Typer cannot catch by itself."""

    exit_code = ExitCode.USAGE


class NoLiveRun(RalphError):
    """The command needs a live run and there is none."""

    def __init__(self, root: object) -> None:
        super().__init__(
            f"no ralph run is live in {root}",
            "start one with ralph run; ralph history shows past rotations",
        )


def yaml_problem(exc: Exception, first_line: int) -> tuple[str, str]:
    """(" line N" or "", the problem) of a YAML error in a file whose YAML starts on line
    `first_line`: the line of the problem (a mis-indented line), except that an unclosed quote
    or bracket is reported at the end of the file: then the line where it opened."""
    context = getattr(exc, "context", None) or ""
    unclosed = context.startswith(("while scanning a quoted scalar", "while parsing a flow"))
    mark = getattr(exc, "context_mark", None) if unclosed else None
    mark = mark or getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" line {mark.line + first_line}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return where, problem


DEEP_YAML = "nested too deeply: more levels than ralph reads"


def model_keys(model: Any) -> set[str]:
    """Every key a Pydantic model (duck-typed) and the models inside it accept."""
    import typing

    keys: set[str] = set()
    todo, seen = [model], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for name, info in getattr(current, "model_fields", {}).items():
            keys.add(info.alias or name)
            stack = [info.annotation]
            while stack:
                kind = stack.pop()
                if hasattr(kind, "model_fields"):
                    todo.append(kind)
                stack.extend(typing.get_args(kind))
    return keys


def invalid_value(
    where: str,
    error: Mapping[str, Any],
    *,
    is_tag: Callable[[str], bool],
    brackets: bool,
    unknown_key: str | None = None,
    keys: Iterable[str] = (),
) -> str:
    """`where: key: message` for one of Pydantic's errors. The key is its location without the
    union members Pydantic puts in it (`is_tag`), list indexes as `[0]` (`brackets`) or `.0`;
    `unknown_key` replaces Pydantic's words for a key the model does not have, and the
    closest of `keys` (the model's) is offered for it."""
    segments: list[str] = []
    for part in error["loc"]:
        if isinstance(part, int) and brackets:
            if segments:
                segments[-1] += f"[{part}]"
            else:
                segments.append(f"[{part}]")
        elif not is_tag(str(part)):
            segments.append(str(part))
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        message = unknown_key or message
        if segments:
            import difflib  # only on this error path

            close = difflib.get_close_matches(segments[-1], list(keys), n=1, cutoff=0.6)
            message += f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: {'.'.join(segments) or '(top level)'}: {message}"
