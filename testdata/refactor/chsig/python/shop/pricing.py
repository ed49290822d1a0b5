"""Prices."""


def price(unit: int, qty: int, discount: int = 0, note: str = "") -> int:
    """The price of qty items of unit cents less discount percent."""
    total = unit * qty
    return total - total * discount // 100


def describe(what: str) -> str:
    """A note; calling it has a side effect (it prints)."""
    print("describing", what)
    return "note: " + what


class Store:
    """Saves values."""

    def save(self, key: str, value: int) -> None:
        raise NotImplementedError


class MemStore(Store):
    """A store in memory."""

    def __init__(self) -> None:
        self.data: dict[str, int] = {}

    def save(self, key: str, value: int) -> None:
        self.data[key] = value
