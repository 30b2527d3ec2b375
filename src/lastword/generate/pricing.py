"""Cost estimates for paid chat models, in US dollars.

An estimate, not a bill: list prices per million tokens as published by each provider when
this table was written, without batch or cache discounts. A model the table does not know
(a local server, a new release) gets no estimate (``None``) rather than a wrong one.
"""

from __future__ import annotations

#: model-name prefix -> (USD per million input tokens, USD per million output tokens)
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "claude-opus-4-6": (5.0, 25.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4-0": (15.0, 75.0),
    "claude-opus-4-2025": (15.0, 75.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-3-7-sonnet": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku": (0.8, 4.0),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.0),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.0, 8.0),
}


def estimate_cost_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """Estimated cost of one call; the longest matching prefix decides (``gpt-4o-mini-2024..``)."""
    matches = [prefix for prefix in PRICES_PER_MILLION if model.startswith(prefix)]
    if not matches:
        return None
    input_price, output_price = PRICES_PER_MILLION[max(matches, key=len)]
    return round((input_tokens * input_price + output_tokens * output_price) / 1_000_000, 8)
