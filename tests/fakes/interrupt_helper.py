"""Run silent.py through ralph's run_process and print the result as JSON (for SIGINT tests)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from ralph.process.request import OPEN, ProcessRequest
from ralph.process.runner import run_process

here = Path(__file__).resolve().parent
request = ProcessRequest(
    argv=(sys.executable, str(here / "silent.py"), sys.argv[1], "ready"),
    cwd=here,
    env=dict(os.environ),
    timeout=20.0,
    kill_grace=1.0,
    confined=OPEN,
)
result = run_process(request, lambda _name, _chunk: None)
fields = dataclasses.asdict(result)
fields["stdout_tail"] = result.stdout_tail.decode()
fields["stderr_tail"] = result.stderr_tail.decode()
print(json.dumps(fields), flush=True)
