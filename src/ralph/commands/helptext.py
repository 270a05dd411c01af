"""What `--help` and a mistyped command line read like: readable placeholders instead of
Typer's `<str>` and `<int range>`, and ralph's own one-line usage errors instead of Click's
wording. Pure text; cli.py applies it (the only module that imports Typer)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ralph.errors import ExitCode

# Help of options too long for one line of cli.py.
HELP = {
    # ralph reset
    "--handoffs": "Also delete the handoffs.",
    "--history": "Also delete the rotation history logs.",
    "--guardrails": "Also reset guardrails.md to its template.",
    "--lanes": "Also discard the open lanes of a --parallel run (worktrees, ralph/... branches).",
    "--all": "All of the above.",
    "--continue": ("Resume with the options the last run started with; options given override."),
    "--html": "Write the latest run as one self-contained HTML file (offline, no scripts).",
    "--run": "Report this archived run (an id under .ralph/archive/), not the latest.",
    "--job": "Report the whole job: every run since the last `ralph reset`, not the latest.",
    "--watch": "Redraw the matrix until Ctrl-C.",
    "--interval": "Seconds between redraws (--watch).",
    "--log": "Also show the last N worklog events.",
    "--even-if-in-git": "Seal them though git holds them (and say what to remove).",
}

SEAL_SPEC = "The spec whose test command runs them (repeat it for several)."

# The placeholder each option's value shows in --help (by its long name).
METAVARS = {
    "--html": "FILE",
    "--run": "ID",
    "--spec": "PATH",
    "--project": "DIR",
    "--interval": "SECONDS",
    "--log": "N",
    "--tail": "N",
    "rotation": "[N]",
}
# Patterns as text: `re` compiles (and caches) them when --help or an error needs them, not
# at every start-up.
_RANGE = r"(?:;\s*)?\bx[<>]=?[\d.]+(?:,\s*x[<>]=?[\d.]+)?(?:;\s*)?"
_EMPTY = r"\s*\[\s*\]"
NO_DEFAULT = frozenset({"--project"})  # its help says what the default is


def without_range(help_text: str) -> str:
    """`Rotations this run may make.  [x>=1]` -> `Rotations this run may make.`: the bound is
    said in ralph's words when a value breaks it."""
    return re.sub(_EMPTY, "", re.sub(_RANGE, "", help_text)).rstrip()


def make_readable(commands: Iterable[Any]) -> None:
    """Typer's commands (duck-typed Click objects) as --help should show them: the whole
    summary (Click cuts it at about 45 characters, mid-sentence), readable placeholders,
    no `[x>=0.001]` bounds."""
    for command in commands:
        command.short_help = command.short_help or (command.help or "").split("\n\n")[0]
        for param in command.params:
            long = max(getattr(param, "opts", None) or [param.name or ""], key=len)
            choices = getattr(getattr(param, "type", None), "choices", None)
            default = "|".join(map(str, choices)) if choices else param.metavar
            param.metavar = METAVARS.get(long, default)
            if long in NO_DEFAULT:
                param.show_default = False
            if not getattr(param.get_help_record, "readable", False):
                param.get_help_record = _readable(param.get_help_record)


def _readable(record: Any) -> Any:
    def get_help_record(ctx: Any) -> Any:
        names, text = record(ctx) or ("", "")
        return (names, without_range(text)) if names else None

    get_help_record.readable = True  # type: ignore[attr-defined]
    return get_help_record


def reported(exc: BaseException) -> int:
    """A RalphError, an OSError or Ctrl-C as one `error:` line and a `hint:` (errors.report),
    each through the printable rule: a message may quote any name. The exit code."""
    from ralph.errors import report
    from ralph.rules.text.printable import printable

    return report(exc, printable)


def refused(exc: Any, say: Callable[[str], object]) -> int:
    """A command line Click refused (its UsageError, duck-typed): `error:` and `hint:` said,
    and the exit code of a usage error."""
    opts = getattr(getattr(exc, "param", None), "opts", None) or []
    unknown = type(exc).__name__ == "NoSuchOption"
    line = usage_error(
        getattr(exc, "message", str(exc)),
        max(opts, key=len) if opts else None,
        getattr(exc, "option_name", None) if unknown else None,
        getattr(exc, "possibilities", None) or (),
    )
    ctx = getattr(exc, "ctx", None)
    where = f"{ctx.command_path} --help" if ctx is not None else "ralph --help"
    from ralph.rules.text.printable import printable  # the command line may hold any character

    say(f"error: {printable(line)}\nhint: {where} lists the options")
    return int(ExitCode.USAGE)


_REWRITES: tuple[tuple[str, str], ...] = (
    (r"^(.+) is not a valid int(?:eger)?(?: range)?\.?$", r"\1 is not a whole number"),
    (r"^(.+) is not a valid float(?: range)?\.?$", r"\1 is not a number"),
    (r"^(.+) is not in the range x>=([\d.]*\d)\.?$", r"must be at least \2, got \1"),
    (r"^(.+) is not in the range x>([\d.]*\d)\.?$", r"must be more than \2, got \1"),
    (r"^(.+) is not one of (.+?)\.?$", r"\1 is not one of \2"),
    (r"^Directory (.+) does not exist\.?$", r"no such folder: \1"),
    (r"^File (.+) is a directory\.?$", r"\1 is a folder, not a file"),
    (
        r"^No such command (.+?)\.\s*Did you mean (.+?)\?$",
        r"unknown command \1 (did you mean \2?)",
    ),
    (r"^No such command (.+?)\.?$", r"unknown command \1"),
    (r"^Option (.+) requires an argument\.?$", r"\1 needs a value"),
    (r"^Got unexpected extra argument\S* \((.+)\)$", r"unexpected argument: \1"),
)  # fmt: skip


def usage_error(
    message: str, option: str | None, unknown: str | None, possibilities: Sequence[str]
) -> str:
    """One line in ralph's words for a command line Click refused: which option, what is
    wrong with its value; an unknown option with the closest known one."""
    if unknown is not None:
        close = " or ".join(sorted(possibilities)[:3])
        return f"unknown option {unknown}" + (f" (did you mean {close}?)" if close else "")
    text = message.strip().removeprefix("Invalid value: ")
    for pattern, words in _REWRITES:
        if re.match(pattern, text):
            text = re.sub(pattern, words, text)
            break
    return f"{option}: {text}" if option else text
