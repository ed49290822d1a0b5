"""Reports."""

from shop import geometry


def line(r: float) -> str:
    return f"r={r} area={geometry.area(r):.2f}"


def circle(c: geometry.Circle) -> str:
    return f"circle area={c.area():.2f}"
