"""The console script: `ralph status` takes a fast path around Typer, with the same results."""

from __future__ import annotations

import pytest

from ralph.entry import plain_status_root


@pytest.mark.parametrize(
    ("args", "fast"),
    [
        (["status"], True),
        (["status", "--json"], True),
        (["status", "-C", "."], True),
        (["status", "--json", "--project", "."], True),
        (["status", "--project=.", "--json"], True),
        (["status", "--help"], False),
        (["status", "--json", "--json"], False),
        (["status", "-C"], False),
        (["status", "-C", "/no/such/folder"], False),
        (["status", "--watch"], False),
        (["run"], False),
        ([], False),
        (["--version"], False),
    ],
)
def test_only_plain_status_lines_take_the_fast_path(args: list[str], fast: bool) -> None:
    assert (plain_status_root(args) is not None) is fast
