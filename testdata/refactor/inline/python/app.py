import geom
import shop
from geom import area

measure = area  # used as a value: never inlined


def main() -> None:
    print(area(3, 4), geom.area(2, 2), measure(1, 2), geom.size((2, 5)))
    print(shop.floor([(2, 3), (1, 1)]), shop.tiles(2), shop.tiles(2), shop.fence(2, 3), shop.price(4))
    print(geom.headers())
    print(geom.report([(2, 3), (1, 4)]), geom.kinds())


if __name__ == "__main__":
    main()
