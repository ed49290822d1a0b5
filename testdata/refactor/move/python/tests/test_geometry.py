from shop.geometry import Circle, area


def test_area() -> None:
    assert area(0) == 0
    assert Circle(1).area() > 3
