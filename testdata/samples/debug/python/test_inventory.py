from inventory import Item, double, restock


def test_restock():
    items = [Item("cup", 1), Item("mug", 2)]
    got = restock(items, 4)  # bp:test
    assert got == 11


def test_double():
    assert double(2) == 4
