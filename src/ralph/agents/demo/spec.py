"""The demo's reading of a spec: its checkboxes and the `file=PATH` blocks that give their files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath, PureWindowsPath

_BOX = re.compile(r"^(?P<lead>\s*[-*+]\s+\[)(?P<mark>[ xX])\]\s+(?P<text>.*?)\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_REVIEW_MARK = re.compile(r"<!--\s*demo:\s*review\s+(\d+)\s*-->", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


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
