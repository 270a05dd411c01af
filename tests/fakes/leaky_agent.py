"""Fake agent that prints every secret it can find, as a careless agent does: the values of its
credential variables, key-shaped strings, a key cut in two by a pause mid-line, keys on stderr,
in its handoff file and in its last words. Its first rotation fails with the key in its error;
later ones say DONE (VERIFY_PASS when verifying)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

NAMES: tuple[str, ...] = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_SERVICE_TOKEN", "DB_PASSWORD")
NAMES += ("SERVICE_API_KEY", "WEIRD_VAR")
SHAPES = (
    "sk-ant-api03-Zq3xY8uV1wT6sR4pO2nM0lK9jH7gF5dS3aQ1zX8cV6bN4mL2kJ0hG",
    "sk-proj-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2Mm3Nn4",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAY34FZKBOKMUTVV7A",
    "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "xoxb-2048-1234567890-AbCdEfGhIjKlMnOp",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "rk_live_51H8AbCdEfGhIjKlMnOp",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0",
    "glpat-AbCdEfGhIjKlMnOpQrSt",
    "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "ya29.a0AfH6SMBx-1234567890abcdefg_hijk",
)
# Secrets that follow a name ralph keeps: a URL's password, an Azure account key.
NAMED = (
    ("postgres://app:", "pg-pass-9f8e7d6c5b", "@db.internal:5432/app"),
    ("AccountKey=", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2U==", ";x"),
)
# A private key block: its lines are secret, and it arrives in two pieces.
PEM_BODY = ("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "VTLw7onLRnrq0Xh")
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----", *PEM_BODY, "-----END OPENSSH PRIVATE KEY-----")


def main() -> int:
    env = os.environ
    keys = [env[name] for name in NAMES if name in env]
    for key in keys:
        print(f"I can see {key} in my environment")
    for shape in SHAPES:
        print(f"found in a file: {shape}", flush=True)
    for before, secret, after in NAMED:
        print(f"config: {before}{secret}{after}", flush=True)
    sys.stdout.write("\n".join(PEM[:2]) + "\n" + PEM[2][:5])
    sys.stdout.flush()
    time.sleep(0.2)
    sys.stdout.write(PEM[2][5:] + "\n" + PEM[3] + "\nafter the key\n")
    sys.stdout.flush()
    # A key cut in two: its halves arrive in separate chunks.
    half = len(keys[1]) // 2
    sys.stdout.write(f"export OPENAI_API_KEY={keys[1][:half]}")
    sys.stdout.flush()
    time.sleep(0.2)
    sys.stdout.write(f"{keys[1][half:]} # done\n")
    sys.stdout.flush()
    print(f"stderr too: {keys[1]} {SHAPES[2]}", file=sys.stderr, flush=True)
    handoff = env.get("RALPH_HANDOFF_FILE")
    if handoff:
        Path(handoff).parent.mkdir(parents=True, exist_ok=True)
        with Path(handoff).open("a") as f:
            f.write(f"\nnotes: the key is {keys[2]} and {SHAPES[0]} and {SHAPES[-3]}\n")
            f.write("\n".join(PEM) + f"\nconfig: {''.join(NAMED[0])}\n")
    guardrails = Path(env["RALPH_STATE_DIR"]) / "guardrails.md"
    with guardrails.open("a") as f:
        f.write(f"- never print {keys[3]}\n")
    if env.get("RALPH_MODE") == "VERIFY":
        print(f"verified with {keys[3]}\n<ralph>VERIFY_PASS</ralph>")
        return 0
    if env.get("RALPH_ITERATION") == "1":
        print(f"error: authentication failed for {keys[0]} ({SHAPES[1]})", file=sys.stderr)
        return 1
    print(f"all done, the key was {keys[4]}\n<ralph>DONE</ralph>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
