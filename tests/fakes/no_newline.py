"""Fake agent: print binary bytes and an unterminated line on stdout and stderr."""

from __future__ import annotations

import sys

sys.stdout.buffer.write(b"\x00\xff\xfe binary \x1b[31m\r\n" + bytes(range(256)))
sys.stdout.buffer.write(b"a last line with no newline")
sys.stdout.flush()
sys.stderr.buffer.write(b"err \x00 without newline")
sys.stderr.flush()
