"""The demo agent's program: one rotation, read from ralph's environment, signal printed last."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

from ralph.agents.demo.handoff import render_handoff
from ralph.agents.demo.modes import run_implement, run_review, run_verify, verify_all
from ralph.agents.demo.narrator import Narrator
from ralph.agents.demo.spec import parse_spec

# Kept to the standard library and free of other `ralph` imports: ralph starts this program
# once per rotation, so its start-up time is part of every rotation of the demo.

DEFAULT_DELAY = 0.6  # seconds: long enough to watch the live panel, short enough not to bore
MEMORY_FILE = "demo-agent.json"
MODES = ("IMPLEMENT", "REVIEW", "VERIFY", "JUDGE")
EXIT_ERROR = 1
EXIT_USAGE = 2


def _load_reviews(path: Path) -> dict[str, int]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # first review, or a damaged file: the demo's memory is disposable
    reviews = raw.get("reviews") if isinstance(raw, dict) else None
    if not isinstance(reviews, dict):
        return {}
    return {str(k): v for k, v in reviews.items() if isinstance(v, int) and v >= 0}


def _save_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        Path(tmp).replace(path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _consume_prompt() -> str:
    # Reading stdin to the end keeps ralph's writer from a broken pipe; a terminal would block.
    if sys.stdin is None or sys.stdin.closed or sys.stdin.isatty():
        return ""
    return sys.stdin.read()


def _fail(message: str, code: int) -> int:
    print(f"demo agent: {message}", file=sys.stderr, flush=True)
    return code


def _delay(raw: str | None) -> float:
    try:
        value = float(raw) if raw is not None else DEFAULT_DELAY
    except ValueError:
        return DEFAULT_DELAY
    return value if value >= 0 else DEFAULT_DELAY


def main() -> int:
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # spec text may not fit a narrow console encoding
            stream.reconfigure(errors="replace")
    env = os.environ
    prompt = _consume_prompt()
    spec_rel = env.get("RALPH_SPEC", "").strip().replace("\\", "/")
    if not spec_rel:
        return _fail(
            "RALPH_SPEC is not set; ralph sets it to the spec to work on "
            "(run `ralph run --agent demo` in a project with specs).",
            EXIT_USAGE,
        )
    mode = env.get("RALPH_MODE", "IMPLEMENT").strip().upper() or "IMPLEMENT"
    if mode not in MODES:
        return _fail(f"RALPH_MODE={mode!r} is not one of {', '.join(MODES)}.", EXIT_USAGE)
    root = Path.cwd()
    try:
        text = (root / spec_rel).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return _fail(f"cannot read spec {spec_rel} (in {root}): {reason}.", EXIT_USAGE)

    iteration = env.get("RALPH_ITERATION", "")
    say = Narrator(_delay(env.get("RALPH_DEMO_DELAY")))
    say.say("", f"demo agent · rotation {iteration or '?'} · {mode} · {spec_rel}")
    if not prompt:
        prompt_file = env.get("RALPH_PROMPT_FILE")
        try:
            prompt = Path(prompt_file).read_text(encoding="utf-8") if prompt_file else ""
        except OSError:
            prompt = ""
    count = len(prompt.splitlines())
    say.say("read", f"prompt ({count} line{'' if count == 1 else 's'})")
    spec = parse_spec(spec_rel, text)
    ticked = sum(box.checked for box in spec.boxes)
    say.say("read", f"{spec_rel} ({len(spec.boxes)} boxes, {ticked} ticked)")
    for rel in spec.unsafe:
        say.say("skip", f"file={rel} points outside the project; not writing it")

    if mode == "JUDGE":
        # A semantic check's judge: the same look as VERIFY, answered VERIFIED / NOT_VERIFIED,
        # and nothing written (a judge judges, it does not fix).
        outcome = run_verify(spec, root, say)
        ok = outcome.signal == "VERIFY_PASS"
        if ok:  # a judge cites its evidence: here, the ticked boxes of the spec
            print(citations(spec_rel, text, prompt), flush=True)
        print("VERIFIED" if ok else f"NOT_VERIFIED: {outcome.reason}", flush=True)
        return 0
    state_dir = Path(env.get("RALPH_STATE_DIR") or root / ".ralph")
    try:
        if mode == "IMPLEMENT":
            outcome = run_implement(spec, root, say)
        elif mode == "REVIEW":
            memory = state_dir / MEMORY_FILE
            reviews = _load_reviews(memory)
            reviews[spec_rel] = reviews.get(spec_rel, 0) + 1
            _save_json(memory, {"reviews": reviews})
            outcome = run_review(spec, root, say, reviews[spec_rel])
        else:
            outcome = verify_all(spec, root, say, env.get("RALPH_SPECS", ""))
        rendered = spec.render()
        if rendered != text:
            (root / spec_rel).write_bytes(rendered.encode("utf-8"))
            say.say("edit", f"{spec_rel} (ticked boxes)")
        handoff = env.get("RALPH_HANDOFF_FILE")
        if handoff:
            path = Path(handoff)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render_handoff(spec, mode, iteration, outcome), encoding="utf-8")
            say.say("write", "handoff for the next rotation")
    except OSError as exc:
        return _fail(f"cannot write {exc.filename or 'a file'}: {exc.strerror or exc}.", EXIT_ERROR)
    print(f"<ralph>{outcome.signal}</ralph>", flush=True)
    return 0


def citations(spec_rel: str, text: str, prompt: str) -> str:
    """One evidence line per numbered criterion of the judge's prompt, each citing a ticked
    box of the spec (file, line and the line's text), in turn."""
    import re

    criteria = prompt.split("## The spec", maxsplit=1)[0]
    numbers = re.findall(r"^(\d+)\. ", criteria, flags=re.M) or ["1"]
    lines = text.splitlines()
    ticked = [(i, line.strip()) for i, line in enumerate(lines, 1) if "[x]" in line.lower()]
    ticked = ticked or [(1, lines[0].strip() if lines else spec_rel)]
    return "\n".join(
        f'EVIDENCE {n}: {spec_rel}:{ticked[k % len(ticked)][0]} "{ticked[k % len(ticked)][1]}"'
        for k, n in enumerate(numbers)
    )
