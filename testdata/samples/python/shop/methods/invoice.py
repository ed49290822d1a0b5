from typing import List

from shop.payment import PaymentMethod


class Invoice(PaymentMethod):
    """Defers payment to a bill sent to the customer."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.due: List[int] = []

    def charge(self, amount: int) -> None:
        self.due.append(amount)

    def name(self) -> str:
        return "invoice #%d" % self.number
