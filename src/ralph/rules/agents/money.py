"""Money in every JSON output: US dollars rounded to 6 decimals, so a sum of prices reads
`0.492`, not `0.49200000000000005` (float addition's noise is not a fact about the run)."""

from __future__ import annotations

from typing import Any

DECIMALS = 6


def money(value: float | None) -> float | None:
    """A price rounded for output; None stays None (no agent reported one)."""
    return None if value is None else round(value, DECIMALS)


def dollars(value: float, places: int = 2) -> str:
    """`$0.28`: a price as every view shows it, rounded from its 6-decimal value, so a sum
    added up live (0.27499999999999997) and the same sum read back from state.json (0.275)
    read the same everywhere."""
    return f"${round(value, DECIMALS):.{places}f}"


def rounded_money(data: Any) -> Any:
    """`data` with every float under a key that names a cost rounded, at any depth."""
    if isinstance(data, dict):
        return {k: money(v) if _is_price(k, v) else rounded_money(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [rounded_money(v) for v in data]
    return data


def _is_price(key: object, value: object) -> bool:
    return isinstance(key, str) and "cost" in key and isinstance(value, float)
