import { area, perimeter } from "./geometry";

export function total(...radii: number[]): number {
  return radii.reduce((sum, r) => sum + area(r), 0);
}

export function twice(r: number): number {
  return 2 * area(r) + perimeter(0);
}
