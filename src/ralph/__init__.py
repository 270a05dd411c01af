"""ralph: run an AI coding agent CLI in a loop until every spec is verified."""

from __future__ import annotations

__version__ = "0.1.0"
