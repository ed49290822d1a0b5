"""Code that is a good target for extract/inline refactorings."""

from __future__ import annotations

from typing import List

from shop.orders import Line


def invoice(lines: List[Line], tax_percent: int) -> str:
    header = "INVOICE"
    subtotal = 0
    for line in lines:
        subtotal += line.qty * line.unit_price
    tax = tax_of(subtotal, tax_percent)
    discount = subtotal // 10 if subtotal > 1000 else 0
    total = subtotal + tax - discount
    return "%s\nsubtotal %s\ntax %s\ntotal %s" % (header, cents(subtotal), cents(tax), cents(total))


def tax_of(subtotal: int, percent: int) -> int:
    """Called from exactly one place: an inline candidate."""
    return subtotal * percent // 100


def cents(amount: int) -> str:
    return "%d.%02d" % (amount // 100, amount % 100)
