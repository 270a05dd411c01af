"""`python -m ralph.agents.demo`: one rotation of the demo agent."""

from __future__ import annotations

import sys

from ralph.agents.demo.program import main

if __name__ == "__main__":
    sys.exit(main())
