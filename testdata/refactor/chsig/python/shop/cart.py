"""Carts."""
from shop.pricing import price


def total(lines: list[tuple[int, int]]) -> int:
    s = 0
    for unit, qty in lines:
        if qty > 10:
            s += price(unit, qty, 5)
        else:
            s += price(
                unit,
                qty,
            )
    return s
