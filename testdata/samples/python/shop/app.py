"""Command-line entry point: python3 -m shop.app"""

from shop import text
from shop.config import load_config
from shop.extract import invoice
from shop.graph import Node, visit
from shop.methods import Card
from shop.orders import Line, Order, process


def main() -> None:
    cfg = load_config("currency=EUR\ntax=20")
    order = Order("A-1", text.normalize("  Ada "), [Line("pen", 3, 150), Line("pad", 1, 400)])
    total = process(order)
    card = Card("4242")
    card.charge(total.amount)
    print(order.customer, total.amount, cfg.currency, card.name())
    print(visit(Node("root", [Node("leaf")])))
    print(text.greet("Ada"), text.describe("label"))
    print(invoice(order.lines, cfg.tax_percent))


if __name__ == "__main__":
    main()
