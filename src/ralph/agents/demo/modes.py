"""What the demo does in each mode: implement a few boxes, review, verify every spec."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ralph.agents.demo.narrator import Narrator
from ralph.agents.demo.spec import Box, Spec, parse_spec

BOXES_PER_ROTATION = 2  # one box per rotation is more realistic; two keeps `make demo` short


@dataclass
class Outcome:
    """How a rotation of the demo ends: its signal, why, and what it did (for the handoff)."""

    signal: str
    reason: str
    done: list[str] = field(default_factory=list)


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


def verify_all(first: Spec, root: Path, say: Narrator, listed: str) -> Outcome:
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
