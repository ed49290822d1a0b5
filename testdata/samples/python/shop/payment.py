"""Ways a customer can pay."""

from __future__ import annotations

from typing import List, Optional


class DeclinedError(Exception):
    pass


class PaymentMethod:
    """Base class for everything that can charge a customer."""

    def charge(self, amount: int) -> None:
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError


def charge_first(methods: List[PaymentMethod], amount: int) -> Optional[PaymentMethod]:
    """Charge amount with the first method that accepts it."""
    for method in methods:
        try:
            method.charge(amount)
        except DeclinedError:
            continue
        return method
    return None
