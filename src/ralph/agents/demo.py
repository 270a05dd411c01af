"""The built-in `demo` agent: a scripted, offline stand-in for a coding agent CLI."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath, PureWindowsPath

# Kept to the standard library and free of `ralph` imports: ralph starts this program once per
# rotation, so its start-up time is part of every rotation of the demo.

BOXES_PER_ROTATION = 2  # one box per rotation is more realistic; two keeps `make demo` short
DEFAULT_DELAY = 0.6  # seconds: long enough to watch the live panel, short enough not to bore
MEMORY_FILE = "demo-agent.json"
MODES = ("IMPLEMENT", "REVIEW", "VERIFY", "JUDGE")
EXIT_ERROR = 1
EXIT_USAGE = 2

_BOX = re.compile(r"^(?P<lead>\s*[-*+]\s+\[)(?P<mark>[ xX])\]\s+(?P<text>.*?)\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_REVIEW_MARK = re.compile(r"<!--\s*demo:\s*review\s+(\d+)\s*-->", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# Narration quotes spec text; a tag inside it must not look like this agent's own signal.
_TAG = re.compile(r"<\s*/?\s*(ralph|promise)\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class Box:
    """One `- [ ] item` of the spec (fenced code excluded)."""

    line: int  # index into Spec.lines
    checked: bool
    text: str
    review_round: int | None  # `<!-- demo: review N -->`: left for the Nth review to "find"
    files: tuple[str, ...]  # backticked paths that a `file=PATH` block gives content for

    @property
    def label(self) -> str:
        return _REVIEW_MARK.sub("", self.text).strip()

    @property
    def short(self) -> str:
        return self.label if len(self.label) <= 72 else self.label[:71] + "…"


@dataclass
class Spec:
    path: str
    lines: list[str]  # with their line endings, so a rewrite only changes the ticked marks
    boxes: list[Box]
    blocks: dict[str, str]  # file path -> content
    unsafe: list[str] = field(default_factory=list)  # file= paths outside the project, refused

    def tick(self, box: Box) -> None:
        line = self.lines[box.line]
        match = _BOX.match(line)
        assert match is not None  # parse_spec only records lines that match
        self.lines[box.line] = line[: match.start("mark")] + "x" + line[match.end("mark") :]
        self.boxes = [replace(b, checked=True) if b.line == box.line else b for b in self.boxes]

    def render(self) -> str:
        return "".join(self.lines)


@dataclass
class Outcome:
    signal: str
    reason: str
    done: list[str] = field(default_factory=list)


class Narrator:
    """Prints short progress lines, spreading the configured delay over the first few."""

    def __init__(self, delay: float) -> None:
        self.step = delay / 3
        self.remaining = delay

    def say(self, verb: str, text: str = "") -> None:
        line = f"  {verb:<6} {text}".rstrip() if verb else text
        print(_TAG.sub("[tag]", line), flush=True)
        pause = min(self.step, self.remaining)
        if pause > 0:
            time.sleep(pause)
            self.remaining -= pause


def parse_spec(path: str, text: str) -> Spec:
    """Find the checkboxes and the `file=PATH` code blocks of a spec."""
    lines = text.splitlines(keepends=True)
    raw_boxes: list[tuple[int, bool, str]] = []
    blocks: dict[str, str] = {}
    unsafe: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r\n")
        fence = _FENCE.match(line)
        if fence is None:
            box = _BOX.match(line)
            if box is not None:
                raw_boxes.append((index, box.group("mark") != " ", box.group("text")))
            index += 1
            continue
        body, index = _read_fence(lines, index + 1, fence)
        target = _file_target(fence.group("info"))
        if target is not None:
            safe = _safe_path(target)
            if safe is None:
                unsafe.append(target)
            else:
                blocks.setdefault(safe, body)  # the first block for a path wins
    boxes = []
    for line_no, checked, item in raw_boxes:
        review = _REVIEW_MARK.search(item)
        mentioned = (_safe_path(span) for span in _CODE_SPAN.findall(item))
        files = tuple(dict.fromkeys(p for p in mentioned if p is not None and p in blocks))
        round_ = int(review.group(1)) if review else None
        boxes.append(Box(line_no, checked, item, round_, files))
    return Spec(path, lines, boxes, blocks, unsafe)


def _read_fence(lines: list[str], start: int, fence: re.Match[str]) -> tuple[str, int]:
    """Content of the block opened just before `start`, and the index after its closing fence."""
    char, length, indent = fence.group("fence")[0], len(fence.group("fence")), fence.group("indent")
    closing = re.compile(rf"^[ \t]*{re.escape(char)}{{{length},}}[ \t]*$")
    body: list[str] = []
    index = start
    while index < len(lines):
        line = lines[index].rstrip("\r\n")
        index += 1
        if closing.match(line):
            break
        # A block nested in a list item is indented like its fence; that indent is not content.
        cut = 0
        while cut < len(indent) and cut < len(line) and line[cut] in " \t":
            cut += 1
        body.append(line[cut:] + "\n")
    return "".join(body), index


def _file_target(info: str) -> str | None:
    for token in info.split():
        if token.startswith("file="):
            return token[len("file=") :].strip("\"'")
    return None


def _safe_path(raw: str) -> str | None:
    """`raw` as a clean relative path inside the project, or None if it could escape it."""
    text = raw.strip().replace("\\", "/")
    posix = PurePosixPath(text)
    if not text or posix.is_absolute() or PureWindowsPath(text).drive or ".." in posix.parts:
        return None
    parts = [part for part in posix.parts if part != "."]
    return "/".join(parts) or None


def _inside(root: Path, rel: str) -> Path | None:
    """The file for `rel`, unless a symlink on the way leads out of the project."""
    target = root / rel
    return target if target.resolve().is_relative_to(root.resolve()) else None


def _matches(root: Path, rel: str, content: str) -> bool:
    target = _inside(root, rel)
    if target is None:
        return True  # never touched, so never "restored" either
    try:
        return target.read_bytes() == content.encode("utf-8")
    except OSError:
        return False


def _write(root: Path, rel: str, content: str) -> bool:
    """Write `content` to `rel`; False (and nothing written) when it is already there."""
    if _matches(root, rel, content):
        return False
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode("utf-8"))  # bytes: the same file on every platform
    return True


def _count_lines(content: str) -> int:
    return content.count("\n")


def _implement(
    spec: Spec, boxes: Iterable[Box], root: Path, say: Narrator, done: list[str], *, why: str = ""
) -> int:
    """Write the files of `boxes` and tick them; returns how many were ticked."""
    ticked = 0
    for box in boxes:
        for rel in box.files:
            content = spec.blocks[rel]
            if _write(root, rel, content):
                say.say("edit", f"{rel} (+{_count_lines(content)} lines)")
            else:
                say.say("keep", f"{rel} (already as the spec wants)")
        spec.tick(box)
        ticked += 1
        say.say("tick", box.short)
        files = ", ".join(f"`{rel}`" for rel in box.files)
        done.append(f"{why}{box.label}" + (f" (wrote {files})" if files else ""))
    return ticked


def _restore_regressions(spec: Spec, root: Path, say: Narrator, done: list[str]) -> None:
    for box in spec.boxes:
        if not box.checked:
            continue
        for rel in box.files:
            if _matches(root, rel, spec.blocks[rel]):
                continue
            missing = not (root / rel).exists()
            _write(root, rel, spec.blocks[rel])
            say.say("fix", f"{rel} was {'deleted' if missing else 'changed'}; restored it")
            done.append(f"Restored `{rel}` ({'deleted' if missing else 'changed'} since ticked)")


def _todo(spec: Spec) -> list[Box]:
    return [box for box in spec.boxes if not box.checked and box.review_round is None]


def run_implement(spec: Spec, root: Path, say: Narrator) -> Outcome:
    todo = _todo(spec)
    if not spec.boxes:
        say.say("note", "no checkboxes in this spec; nothing scripted to implement")
        return Outcome("DONE", "the spec has no checkboxes")
    if not todo:
        say.say("note", "every box to implement is ticked")
        return Outcome("DONE", "nothing left to implement")
    done: list[str] = []
    batch = todo[:BOXES_PER_ROTATION]
    _implement(spec, batch, root, say, done)
    left = len(todo) - len(batch)
    if left:
        say.say("note", f"{left} box{'es' if left > 1 else ''} left for the next rotation")
        return Outcome("CONTINUE", f"{left} box(es) left to implement", done)
    return Outcome("DONE", "every box to implement is ticked", done)


def run_review(spec: Spec, root: Path, say: Narrator, review: int) -> Outcome:
    say.say("check", f"review #{review}: every ticked box's file against the spec")
    done: list[str] = []
    _restore_regressions(spec, root, say, done)
    # A box left unticked (say the spec was edited by hand) is unfinished work a reviewer does.
    todo = _todo(spec)
    batch = todo[:BOXES_PER_ROTATION]
    _implement(spec, batch, root, say, done)
    found = [
        box
        for box in spec.boxes
        if not box.checked and box.review_round is not None and box.review_round <= review
    ]
    if found:
        say.say("found", f"{len(found)} box(es) that earlier rotations left undone")
    _implement(spec, found, root, say, done, why="Found in review: ")
    left = len(todo) - len(batch)
    if left:
        return Outcome("CONTINUE", f"{left} box(es) left to implement", done)
    if not done:
        say.say("ok", "everything matches the spec; no changes")
        return Outcome("DONE", "reviewed, nothing to change", done)
    return Outcome("DONE", "review found work and did it", done)


def run_verify(spec: Spec, root: Path, say: Narrator) -> Outcome:
    problems = [f"unticked: {box.short}" for box in spec.boxes if not box.checked]
    problems += [
        f"`{rel}` differs from the spec"
        for box in spec.boxes
        if box.checked
        for rel in box.files
        if not _matches(root, rel, spec.blocks[rel])
    ]
    for problem in problems:
        say.say("fail", problem)
    if problems:
        return Outcome("VERIFY_FAIL", "; ".join(problems))
    say.say("ok", "every box is ticked and every file matches the spec")
    return Outcome("VERIFY_PASS", "every box is ticked and every file matches the spec")


def _verify_all(first: Spec, root: Path, say: Narrator, listed: str) -> Outcome:
    """A final verification covers every spec ralph lists in RALPH_SPECS (one per line)."""
    paths = [p.strip() for p in listed.splitlines() if p.strip()] or [first.path]
    problems: list[str] = []
    for rel in paths:
        if rel == first.path:
            spec = first
        else:
            try:
                spec = parse_spec(rel, (root / rel).read_bytes().decode("utf-8"))
            except (OSError, UnicodeDecodeError):
                say.say("fail", f"cannot read {rel}")
                problems.append(f"{rel}: unreadable")
                continue
        say.say("check", rel)
        outcome = run_verify(spec, root, say)
        if outcome.signal != "VERIFY_PASS":
            problems.append(f"{rel}: {outcome.reason}")
    if problems:
        return Outcome("VERIFY_FAIL", "; ".join(problems))
    return Outcome("VERIFY_PASS", f"all {len(paths)} spec(s) ticked and every file matches")


def render_handoff(spec: Spec, mode: str, iteration: str, outcome: Outcome) -> str:
    """The note the next rotation (a fresh context) starts from."""
    lines = [
        f"# Handoff: {spec.path}",
        "",
        f"Written by the demo agent after rotation {iteration or '?'} ({mode}).",
        "",
        "## Done this rotation",
        *(f"- {item}" for item in outcome.done or ["Nothing changed."]),
        "",
        "## What remains",
    ]
    left = [box for box in spec.boxes if not box.checked]
    lines += [f"- [ ] {box.label}" for box in left] or ["- Nothing: every box is ticked."]
    lines += ["", "## Signal", "", f"{outcome.signal}: {outcome.reason}.", ""]
    return _TAG.sub("[tag]", "\n".join(lines))


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
            outcome = _verify_all(spec, root, say, env.get("RALPH_SPECS", ""))
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


if __name__ == "__main__":
    sys.exit(main())
