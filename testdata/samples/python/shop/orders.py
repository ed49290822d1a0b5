"""Validate orders and compute their totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List


@dataclass
class Line:
    sku: str
    qty: int
    unit_price: int  # in cents


@dataclass
class Order:
    id: str
    customer: str
    lines: List[Line] = field(default_factory=list)


@dataclass
class Total:
    amount: int = 0
    items: int = 0

    def add(self, line: Line) -> None:
        self.amount += line.qty * line.unit_price
        self.items += line.qty


class EmptyOrderError(ValueError):
    pass


def process(order: Order) -> Total:
    """Validate order and compute its total."""
    if not order.lines:
        raise EmptyOrderError(order.id)
    total = Total()
    for line in order.lines:
        total.add(line)
    return total


def process_batch(batch: List[Order]) -> int:
    """Process every order and sum the amounts."""
    amount = 0
    for order in batch:
        amount += process(order).amount
    return amount


def normalize(order_id: str) -> str:
    """Clean up an order id such as ' a-1 ' -> 'A-1'."""
    return order_id.strip().upper()
