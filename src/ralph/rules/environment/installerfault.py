"""Whose fault an installer's failure is (pure): the package index that cannot be reached is
ralph's or the person's problem (the network, the index's address), never the agent's; a name
the index does not have, a wheel that is missing, a conflict, are the tree's."""

from __future__ import annotations

import re

# What uv and npm say when the network, not the request, failed; and uv's word for a folder of
# wheels its settings name that is not there (the person's settings: the tree's sources wait
# for a person's say before any build reads them).
_UNREACHABLE = re.compile(
    r"failed to read `--find-links` directory|"
    r"error sending request|failed to fetch|tcp connect error|connection refused|"
    r"dns error|failed to lookup address|could not connect|network is unreachable|"
    r"operation timed out|connection reset|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|"
    r"EAI_AGAIN|EHOSTUNREACH|network request to .* failed",
    re.IGNORECASE,
)


def unreachable(said: str) -> bool:
    """Did the installer fail because its package index could not be reached?"""
    return _UNREACHABLE.search(said) is not None


def halt_line(said: str) -> str:
    """The run's last line when it ends on it."""
    return (
        f"the package index cannot be reached, so ralph cannot build the checks' environment "
        f"the tree declares ({said}); not counted against the agent: run again once it can be "
        "reached (ralph doctor checks it)"
    )
