"""A stand-in for Claude Code (`claude -p --output-format stream-json`), scripted per call.

Reads the prompt on stdin like the real CLI, then does the next step of the JSON script named by
FAKE_CLAUDE_SCRIPT (the Nth call runs step N; the last step repeats) and prints the stream-json
events the real CLI prints for it (shapes recorded from Claude Code 2.1.197 against the mock):

- {"kind": "done"|"continue"|"verify_pass"|"verify_fail", "write": {path: text}, "input": N,
  (a "text" replaces the final text: a judge's `VERIFIED` / `NOT_VERIFIED: why`)
  "output": N, "cost": USD}
- {"kind": "rate_limit", "resets_in": S}: a subscription limit with a `rate_limit_event`
  whose resetsAt is now + S; without "resets_in", an API 429 that gives no reset time (a
  short, per-minute limit), or the step's "text" (e.g. a usage limit without a reset time)
  ("type": "seven_day" for a weekly limit); any step may carry "limit": a rate_limit_event's
  rate_limit_info with "resets_in" S instead of resetsAt (e.g. a warning at 92 % utilisation)
- {"kind": "root"}: the refusal to skip permissions as root (stderr only)
- {"kind": "auth"}: "Invalid API key"; {"kind": "overflow"}: "Prompt is too long"
- "sleep": S before answering. Each call is appended to SCRIPT.calls.jsonl.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

SESSION = "00000000-0000-4000-8000-000000000000"


def emit(event: dict[str, Any]) -> None:
    print(json.dumps({**event, "session_id": SESSION}), flush=True)


def assistant(text: str, *, synthetic: str | None = None) -> None:
    event: dict[str, Any] = {
        "type": "assistant",
        "message": {
            "id": f"msg_{time.time_ns()}",
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>" if synthetic else "claude-opus-4-8",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 0, "output_tokens": 0},
        },
    }
    if synthetic:
        event["error"] = synthetic
    emit(event)


def result(text: str, *, error: bool, status: int | None = None, **extra: Any) -> None:
    emit(
        {
            "type": "result",
            "subtype": "success",
            "is_error": error,
            "api_error_status": status,
            "num_turns": 1,
            "result": text,
            "total_cost_usd": extra.pop("cost", 0),
            "usage": {
                "input_tokens": extra.pop("input", 0),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": extra.pop("output", 0),
            },
            **extra,
        }
    )


def main() -> int:
    sys.stdin.read()
    script = Path(os.environ["FAKE_CLAUDE_SCRIPT"])
    steps: list[dict[str, Any]] = json.loads(script.read_text())
    calls = script.with_name(script.name + ".calls.jsonl")
    nth = len(calls.read_text().splitlines()) if calls.exists() else 0
    step = steps[min(nth, len(steps) - 1)]
    with calls.open("a") as f:
        f.write(json.dumps({"argv": sys.argv[1:], "spec": os.environ.get("RALPH_SPEC")}) + "\n")
    emit({"type": "system", "subtype": "init", "cwd": str(Path.cwd()), "model": "claude-opus-4-8"})
    time.sleep(step.get("sleep", 0))
    for path, content in step.get("write", {}).items():
        Path(path).write_text(content)
    kind = step["kind"]
    if "limit" in step:  # a rate_limit_event as a subscription reports it: resets_in S from now
        info = dict(step["limit"])
        info["resetsAt"] = int(time.time() + info.pop("resets_in", 3600))
        emit({"type": "rate_limit_event", "rate_limit_info": info})
    if kind in ("done", "continue", "verify_pass", "verify_fail"):
        text = step.get("text") or f"Worked. <ralph>{kind.upper()}</ralph>"
        assistant(text)
        result(
            text,
            error=False,
            input=step.get("input", 0),
            output=step.get("output", 0),
            cost=step.get("cost", 0),
        )
        return 0
    if kind == "rate_limit":
        if "resets_in" in step:
            resets = int(time.time() + step["resets_in"])
            emit(
                {
                    "type": "rate_limit_event",
                    "rate_limit_info": {
                        "status": "rejected",
                        "resetsAt": resets,
                        "rateLimitType": step.get("type", "five_hour"),
                    },
                }
            )
            clock = time.strftime("%-I:%M%p", time.gmtime(resets)).lower()
            which = "weekly" if step.get("type", "").startswith("seven_day") else "session"
            text = f"You've hit your {which} limit · resets {clock} (UTC)"
        else:
            text = step.get("text") or (
                "API Error: Request rejected (429) · This request would exceed the rate limit "
                "for your organization of 50,000 input tokens per minute."
            )
        assistant(text, synthetic="rate_limit")
        result(text, error=True, status=429)
        return 1
    if kind == "root":  # what the real CLI does as root without IS_SANDBOX=1: stderr, exit 1
        sys.stderr.write(
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for "
            "security reasons\n"
        )
        return 1
    if kind == "auth":
        text = "Invalid API key · Fix external API key"
        assistant(text, synthetic="authentication_failed")
        result(text, error=True, status=401)
        return 1
    if kind == "overflow":
        text = (
            "Prompt is too long · the request is ~250000 tokens (limit 200000) but this "
            "conversation is only ~1551 tokens"
        )
        assistant(text, synthetic="invalid_request")
        result(text, error=True, status=400, terminal_reason="prompt_too_long")
        return 1
    raise SystemExit(f"fake_claude: unknown step kind {kind!r}")


if __name__ == "__main__":
    sys.exit(main())
