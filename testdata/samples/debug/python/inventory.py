"""The debugger's Python test subject (dap and tools tests).

Tests find lines by their "bp:" markers, never by number.
"""

import sys
from dataclasses import dataclass, field


@dataclass
class Owner:
    name: str


@dataclass
class Item:
    name: str
    qty: int
    tags: list = field(default_factory=list)
    owner: Owner = None


def restock(items, n):
    total = 0
    for item in items:  # bp:for (a TypeError with "crash")
        item.qty += n  # bp:loop
        total += item.qty
    return total  # bp:return


def double(x):
    y = x * 2  # bp:double
    return y


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "crash":
        restock(None, 1)
    items = [
        Item("pen", 3, ["office", "blue"], Owner("Ada")),
        Item("pad", 1),
        Item("ink", 7),
    ]
    # bp:nocode (a comment: no code on this line)
    total = restock(items, 2)  # bp:call
    d = double(total)  # bp:after
    print("total", total, "double", d)
    print("inventory: done", file=sys.stderr)
    sys.exit(3)  # bp:exit


if __name__ == "__main__":
    main()
