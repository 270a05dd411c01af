"""Headless Chromium (the distribution's package, tests/install_browser.sh) for the HTML
report's tests: a screenshot, the console's messages, and a PNG read in pure Python."""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass(frozen=True)
class Rendered:
    png: bytes
    console: list[str]  # the page's console messages (errors included), as Chromium logs them


def render(page: Path, *, width: int = 1200, height: int = 1600) -> Rendered:
    """The page opened offline in a new, empty profile: its screenshot and console lines."""
    browser = chromium()
    assert browser is not None
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        proc = subprocess.run(
            [
                browser,
                *FLAGS,
                f"--user-data-dir={Path(tmp) / 'profile'}",
                f"--window-size={width},{height}",
                f"--screenshot={shot}",
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert shot.exists(), proc.stderr[-2000:]
        console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
        return Rendered(shot.read_bytes(), console)


def png_pixels(data: bytes, max_rows: int = 600) -> tuple[int, int, list[bytes]]:
    """Width, height and the first rows of an 8-bit RGB or RGBA PNG, unfiltered (pure Python:
    a row depends only on the rows above it, so the top of the page is read alone)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[bytes] = []
    prev = bytes(stride)
    for y in range(min(height, max_rows)):
        start = y * (stride + 1)
        filt, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = prev[i], prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + left) & 255
            elif filt == 2:
                line[i] = (line[i] + up) & 255
            elif filt == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif filt == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = bytes(line)
    return width, height, rows


def colours(data: bytes, *, step: int = 4) -> int:
    """How many different colours a sample of the screenshot's pixels has."""
    width, _, rows = png_pixels(data)
    channels = len(rows[0]) // width
    seen = set()
    for row in rows[::step]:
        for x in range(0, width, step):
            seen.add(row[x * channels : x * channels + 3])
    return len(seen)
