// Shapes of the move_symbol sample.

/** How much every area is scaled. */
export const SCALE = 1;

/**
 * The area of a disc of radius r.
 */
export function area(r: number): number {
  return Math.PI * r * r * SCALE;
}

/** A disc. */
export class Circle {
  constructor(public r: number) {}

  area(): number {
    return area(this.r);
  }
}

export function perimeter(r: number): number {
  return 2 * Math.PI * r;
}
