import { price } from "./pricing";

export function total(lines: Array<[number, number]>): number {
  let s = 0;
  for (const [unit, qty] of lines) {
    if (qty > 10) {
      s += price(unit, qty, 5);
    } else {
      s += price(
        unit,
        qty,
      );
    }
  }
  return s;
}
