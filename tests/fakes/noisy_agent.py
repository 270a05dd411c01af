"""A fake agent whose output is hostile: binary bytes, a huge line with no end, then its tag."""

from __future__ import annotations

import os
import sys

sys.stdin.buffer.read()
out = sys.stdout.buffer
out.write(os.urandom(3 << 20))  # binary, invalid UTF-8, stray escape codes and NULs
out.write(b"x" * (2 << 20))  # a 2 MB line ...
out.write(b"\r\n" + "r\u00e9sum\u00e9 \u2713\n".encode())
out.write(os.urandom(1 << 20).replace(b"<", b"("))  # more noise, but no stray tag start
out.write(b"\n<ralph>DONE</ralph>\n")
out.flush()
