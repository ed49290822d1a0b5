from geom import area, perimeter, scaled

counted = 0


def next_width() -> int:
    global counted
    counted += 1
    return counted


def floor(rooms: list[tuple[int, int]]) -> int:
    total = 0
    for w, h in rooms:
        total += area(w, h)
    return total


def tiles(n: int) -> int:
    return area(n + 1, next_width())


def fence(w: int, h: int) -> int:
    return perimeter(w, h) + perimeter(h=1, w=w)


def price(n: int) -> int:
    return scaled(n)
