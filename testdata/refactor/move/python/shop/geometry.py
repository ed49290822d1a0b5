"""Shapes of the move_symbol sample."""

import math
from dataclasses import dataclass

# How much every area is scaled.
SCALE = 1.0


# The area of a disc of radius r.
def area(r: float) -> float:
    """Return pi r squared."""
    return math.pi * r * r


@dataclass
class Circle:
    """A disc."""

    r: float

    def area(self) -> float:
        return area(self.r) * SCALE


def perimeter(r: float) -> float:
    return 2 * math.pi * r
