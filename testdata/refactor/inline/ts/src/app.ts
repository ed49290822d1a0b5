import * as geom from "./geom";
import { area } from "./geom";
import * as shop from "./shop";

// area used as a value: never inlined.
export const measure = area;

export function main(): string {
  return [area(3, 4), geom.area(2, 2), measure(1, 2), geom.size([2, 5]),
    shop.floor([[2, 3], [1, 1]]), shop.tiles(2), shop.tiles(2), shop.fence(2, 3), shop.price(4), geom.halves(6), new geom.Box(2, 3).volume(4)].join(" ");
}
