"""How a refusal quotes a value it was given: whole when short, else a prefix and the length, so that a message
never echoes a 5,000-digit number or a 64 KiB spec back."""

from __future__ import annotations

from typing import Any

SPEC_CHARS = 120
"""The most characters of an agent spec a refusal quotes (a spec is the user's own words: whole, unless huge)."""


def quoted(value: Any, most: int = 40) -> str:
    """``repr(value)``, or for a long one its first ``most`` characters and how many there were."""
    text = value if isinstance(value, str) else repr(value) if not isinstance(value, int) else None
    if text is None:  # an int: str() of a huge one raises past Python's digit limit
        digits = value.bit_length() * 0.30103
        return repr(value) if digits < most else f"a whole number of about {digits:,.0f} digits"
    if len(text) <= most:
        return repr(value)
    return repr(text[:most]) + f"... ({len(text):,} characters)"
