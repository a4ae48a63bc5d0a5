"""How numbers look in tables: one rule for the CLI, the live views and the review."""

from __future__ import annotations

from typing import Any


def cell(value: Any, digits: int = 4) -> str:
    """A table cell: '-' when missing, floats to `digits` significant digits, big numbers with separators."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 10**digits else f"{value:.{digits}g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
