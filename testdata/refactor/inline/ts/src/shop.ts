import { area, perimeter, scaled } from "./geom";

let counted = 0;

function nextWidth(): number {
  counted++;
  return counted;
}

export function floor(rooms: [number, number][]): number {
  let total = 0;
  for (const [w, h] of rooms) {
    total += area(w, h);
  }
  return total;
}

export function tiles(n: number): number {
  return area(n + 1, nextWidth());
}

// Two calls whose arguments are bound to locals: numbered top-down.
export function rooms(n: number): number {
  const first = area(n + 1, nextWidth());
  const second = area(n + 2, nextWidth());
  return first + second;
}

export function fence(w: number, h: number): number {
  return perimeter(w, h) + perimeter(w, 1);
}

export function price(n: number): number {
  return scaled(n);
}
