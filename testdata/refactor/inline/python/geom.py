"""Geometry helpers that inline_function's tests inline."""

RATE = 2


def area(w: int, h: int) -> int:
    """The area of a w×h rectangle."""
    return w * h


def perimeter(w: int, h: int) -> int:
    return 2 * (w + h)


def scaled(x: int) -> int:
    return x * RATE


def fact(n: int) -> int:
    return 1 if n <= 1 else n * fact(n - 1)


def size(rect: tuple[int, int]) -> int:
    return area(rect[0], rect[1])


VERSION = "1.0"


def user_agent(name: str = "python-requests") -> str:
    return f"{name}/{VERSION}"


def headers() -> dict[str, str]:
    return {"User-Agent": user_agent(), "From": user_agent('say "hi"')}


def counts(words: list[str]) -> dict[str, int]:
    return {w: len(w) for w in words}


def summary(rooms: list[tuple[int, int]]) -> str:
    """Statements: a local, a loop, then the value."""
    total = 0
    for w, h in rooms:
        total += w * h
    label = "rooms"
    return f"{label}: {total}"


def report(rooms: list[tuple[int, int]]) -> str:
    total = summary(rooms)
    print(summary([(1, 1)]))
    counted = counts(["ab", "c"])
    return f"{total} {counted}"


def kind(n: int) -> str:
    if n < 0:
        return "negative"
    if n == 0:
        return "zero"
    return "positive"


def kinds() -> str:
    first = kind(-1)
    return kind(3)
