"""Deliberately wrong code; it feeds diagnostics tests."""


def quantity() -> int:
    count: int = "three"
    return count + missing_total
