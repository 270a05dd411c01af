"""What providers answer when they refuse, as scripts for the model server: the texts and
headers each real CLI turns into its own error, which ralph then reads
(tests/e2e/test_agent_cli*.py)."""

from __future__ import annotations

from typing import Any

FAR_RESET = 1893456000  # 2030-01-01 00:00 UTC: a reset no test waits for


def refusing(error: dict[str, Any]) -> dict[str, Any]:
    """A script whose one rotation is refused at its first request, every attempt."""
    return {"steps": [{"error": error}]}


def unified(status: str, claim: str, short: str, reset: int, used: float) -> dict[str, str]:
    """Anthropic's subscription headers: one window (`short`: 5h, 7d) at `used`, its reset."""
    prefix = "anthropic-ratelimit-unified"
    return {
        f"{prefix}-status": status,
        f"{prefix}-reset": str(reset),
        f"{prefix}-representative-claim": claim,
        f"{prefix}-{short}-status": status,
        f"{prefix}-{short}-reset": str(reset),
        f"{prefix}-{short}-utilization": str(used),
    }


# Claude Code on a subscription: the five-hour window is spent ("You've hit your session limit").
SESSION_LIMIT = refusing(
    {
        "status": 429,
        "type": "rate_limit_error",
        "message": "Error",
        "headers": unified("rejected", "five_hour", "5h", FAR_RESET, 1.0),
    }
)
# The context window overflowed.
PROMPT_TOO_LONG = refusing(
    {
        "status": 400,
        "type": "invalid_request_error",
        "message": "prompt is too long: 250000 tokens > 200000 maximum",
    }
)
BAD_KEY = refusing({"status": 401, "type": "authentication_error", "message": "invalid x-api-key"})
# Codex on a ChatGPT plan: the usage limit, with the time it lifts.
CODEX_USAGE_LIMIT = refusing(
    {
        "status": 429,
        "type": "usage_limit_reached",
        "message": "The usage limit has been reached",
        "extra": {"plan_type": "plus", "resets_at": FAR_RESET},
    }
)
# Gemini's free tier: the daily quota of requests per model is spent (Gemini CLI exits 173).
GEMINI_DAILY_QUOTA = refusing(
    {
        "status": 429,
        "type": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "extra": {
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                            "quotaDimensions": {"location": "global", "model": "gemini-2.5-pro"},
                            "quotaValue": "50",
                        }
                    ],
                }
            ]
        },
    }
)
