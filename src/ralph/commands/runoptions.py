"""The options of one `ralph run`: as given, saved in ralph's private store once the run has
started (not in `.ralph/`, where an agent could rewrite what the next `--continue` runs), and
merged back by `ralph run --continue` (options given again win over the saved ones).

No Typer here: the command line hands over the options as given, which of them were left at
their defaults, and a converter that checks a saved value by its option's own type.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.errors import StateError, UsageError
from ralph.store.workspace import STATE_DIR

if TYPE_CHECKING:
    from collections.abc import Sequence

OPTIONS_FILE = "run-options.json"
# `ralph run` options that --continue does not take from the saved run.
NOT_SAVED = frozenset({"root", "continue_"})
_PATH_OPTIONS = frozenset({"junit", "report_json", "report_html"})
# Options of which one given again replaces the others' saved values.
_EXCLUSIVE = (("agent", "agent_command"), ("quiet", "verbose"))


@dataclass(frozen=True)
class RunRequest:
    root: Path
    # Named as the command-line options (saved for --continue): each may be repeated, in order.
    agent: Sequence[str] | None = None  # --agent
    agent_command: Sequence[str] | None = None  # --agent-command
    model: str | None = None  # --model: for every agent of this run
    max_iterations: int | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    rotation: str | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    plain: bool = False  # headless forced (`--headless`, or its older name `--plain`)
    no_color: bool = False
    verbose: bool = False
    quiet: bool = False
    log_format: str = "text"  # text | json
    junit: Path | None = None  # --report-junit (or its older name --junit)
    report_json: Path | None = None
    report_html: Path | None = None
    notify: bool = False
    on_escalation: str | None = None  # abort | accept | continue, for a headless run
    wait_for_reset: bool = False  # wait for a weekly/daily window too (up to pool.max_wait)
    sandbox: str | None = None  # --sandbox: off | auto | srt | bwrap | docker (ralph.yaml's else)
    spec: Sequence[str] | None = None  # --spec: only these specs (paths), in any order
    parallel: int | None = None  # --parallel: lanes at once (None: ralph.yaml's `parallel`)
    # The options as given (after --continue merged the saved ones): saved in .ralph/ once
    # the run has started, for the next `ralph run --continue`.
    saved_options: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def reports(self) -> tuple[Path | None, ...]:
        """The report files this run writes at its end (None where not asked for)."""
        return (self.junit, self.report_json, self.report_html)


def save_run_options(root: Path, options: dict[str, Any]) -> None:
    from ralph.store.files import write_json_atomic
    from ralph.store.private import ensure_store

    write_json_atomic(
        ensure_store(root) / OPTIONS_FILE,
        {"schema_version": 1, "saved_at": time.time(), "options": options},
    )


def load_run_options(root: Path) -> dict[str, Any]:
    """The options the last run started with; an error when there are none."""
    from ralph.store.files import load_json
    from ralph.store.private import store_dir

    path = store_dir(root) / OPTIONS_FILE
    legacy = root / STATE_DIR / OPTIONS_FILE
    if not path.exists() and legacy.is_file() and not legacy.is_symlink():
        path = legacy  # saved by an earlier ralph; the run that starts moves it into the store
    data = load_json(path, f"the saved run options ({path})")
    if data is None:
        raise UsageError(
            f"nothing to continue: no saved run options for {root}",
            "start a run with ralph run (its options are saved then), or drop --continue",
        )
    if not isinstance(data, dict) or not isinstance(data.get("options"), dict):
        raise StateError(
            f"{path}: expected an object with 'options'",
            "delete the file and give the options again",
        )
    options: dict[str, Any] = data["options"]
    return options


def given_options(params: dict[str, Any]) -> dict[str, Any]:
    """The options as given on the command line, as they are saved."""
    given = {
        k: v.value if isinstance(v, Enum) else v for k, v in params.items() if k not in NOT_SAVED
    }
    for name in _PATH_OPTIONS:  # saved absolute, so --continue from anywhere writes the same file
        if isinstance(given.get(name), (str, Path)):
            given[name] = str(Path(given[name]).absolute())
    return given


def continued_options(
    root: Path,
    given: dict[str, Any],
    *,
    defaulted: Callable[[str], bool],
    convert: Callable[[str, Any], Any],
) -> dict[str, Any]:
    """`--continue`: the saved options for those left at their defaults, the given ones else."""
    saved = load_run_options(root)
    saved = _checked_options(
        {k: v for k, v in saved.items() if k in given and defaulted(k)}, convert
    )
    merged = dict(given)
    for name, value in saved.items():
        if name in merged and defaulted(name):
            merged[name] = value  # options given again override the saved ones
    for group in _EXCLUSIVE:
        chosen = [name for name in group if not defaulted(name)]
        if chosen:  # `--agent demo` again replaces a saved --agent-command, and the like
            for name in group:
                if name not in chosen:
                    merged[name] = given[name]
    return merged


def _checked_options(saved: dict[str, Any], convert: Callable[[str, Any], Any]) -> dict[str, Any]:
    """Saved options converted by their own option types: a hand-edited file with a wrong
    value is one clear error, not a traceback later."""
    checked: dict[str, Any] = {}
    for name, value in saved.items():
        try:
            converted = value if value is None else convert(name, value)
        except Exception as exc:  # Click's BadParameter and whatever a type raises
            raise StateError(
                f"the saved run options ({OPTIONS_FILE} in ralph's private store): option "
                f"{name}: {value!r} is not valid ({exc})",
                "give the option again with --continue (it replaces the saved one), or start "
                "afresh without --continue",
            ) from None
        checked[name] = converted.value if isinstance(converted, Enum) else converted
    return checked


def check_pool_options(options: dict[str, Any]) -> None:
    from ralph.rules.pool import ROTATIONS

    rotation, max_cost = options.get("rotation"), options.get("max_cost")
    if rotation is not None and rotation not in ROTATIONS:
        raise UsageError(
            f"--rotation {rotation}: unknown policy", f"use one of: {', '.join(ROTATIONS)}"
        )
    if max_cost is not None and not max_cost > 0:
        raise UsageError(f"--max-cost {max_cost}: must be more than 0", "give a USD amount")


def run_request(root: Path, options: dict[str, Any]) -> RunRequest:
    """The request for the run these options describe (they are saved along with it)."""
    check_pool_options(options)
    request = {k: v for k, v in options.items() if k in RunRequest.__dataclass_fields__}
    for name in _PATH_OPTIONS:
        if request.get(name) is not None:
            request[name] = Path(request[name])
    return RunRequest(root=root, saved_options=options, **request)


def options_of(ctx: Any, continue_: bool, root: Path) -> dict[str, Any]:
    """The options this run uses: as given, and with --continue the saved ones for the rest.
    `ctx` is the command line's Click context, read by duck typing (no Typer import here)."""
    given = given_options(ctx.params)
    if not continue_:
        return given
    params = {p.name: p for p in ctx.command.params}

    def defaulted(name: str) -> bool:
        # By name: Typer may bring its own copy of Click, whose enum is not importable as such.
        source = ctx.get_parameter_source(name)
        return getattr(source, "name", "DEFAULT") in ("DEFAULT", "DEFAULT_MAP")

    def convert(name: str, value: Any) -> Any:
        return params[name].type_cast_value(ctx, value)

    return continued_options(root, given, defaulted=defaulted, convert=convert)
