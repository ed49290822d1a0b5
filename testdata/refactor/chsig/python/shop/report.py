"""Reports."""
from shop import pricing
from shop.pricing import MemStore, Store, describe, price


def run(store: Store) -> int:
    a = len("é🙂") * 0 + price(100, 3, note="a")
    b = pricing.price(40, 2, 50, describe("b"))
    store.save("a", a)
    store.save("b", b)
    return a + b


def direct() -> MemStore:
    m = MemStore()
    m.save("direct", price(qty=1, unit=1))
    return m


PRICER = price
