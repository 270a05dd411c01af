"""rules/evidence/exits.py: code that ends the test run while it is imported (pure, `ast`)."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.exits import import_exits


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("import os\nprint('4 passed in 0.01s')\nos._exit(0)\n", (3, "calls `os._exit`")),
        ("from os import _exit\n_exit(0)\n", (2, "calls `os._exit`")),
        ("import sys\nif True:\n    sys.exit(0)\n", (3, "calls `sys.exit`")),
        ("class C:\n    exit(0)\n", (2, "calls `exit`")),
        ("import os\ntry:\n    pass\nfinally:\n    os.abort()\n", (5, "calls `os.abort`")),
    ],
)
def test_code_that_ends_the_test_run_at_import(source: str, what: tuple[int, str]) -> None:
    found = import_exits(source)
    assert found and found[0][0] == what[0] and what[1] in found[0][1], found


@pytest.mark.parametrize(
    "source",
    [
        "import sys\n\ndef main():\n    sys.exit(0)\n",
        "import sys\nif __name__ == '__main__':\n    sys.exit(main())\n",
        "import os\nstop = lambda: os._exit(0)\n",
        "import os\nclass C:\n    def stop(self):\n        os._exit(1)\n",
    ],
)
def test_exits_that_run_only_when_called_are_no_reason(source: str) -> None:
    assert import_exits(source) == []
