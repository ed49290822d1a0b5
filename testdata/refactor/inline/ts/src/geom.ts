// Geometry helpers that inline_function's tests inline.

const RATE = 2;

/** The area of a w×h rectangle. */
export function area(w: number, h: number): number {
  return w * h;
}

export function perimeter(w: number, h: number): number {
  return 2 * (w + h);
}

export function scaled(x: number): number {
  return x * RATE;
}

export function fact(n: number): number {
  return n <= 1 ? 1 : n * fact(n - 1);
}

export function size(rect: [number, number]): number {
  return area(rect[0], rect[1]);
}

// Arrow-function constants and an optional parameter (most real
// TypeScript: zod's helpers are written so).
const half = (x: number): number => x / 2;
const grow = (x: number, by?: number) => x + (by ?? 1);

export function halves(n: number): number {
  return half(n) + half(n + 2) + grow(n) + grow(n, 3);
}

// A block-bodied arrow constant called in a template literal (zod's
// locales: capitalizeFirstCharacter).
const capital = (text: string): string => {
  return text.charAt(0).toUpperCase() + text.slice(1);
};

export function title(words: { first?: string }): string {
  const first = `${capital(words.first ?? "none")}!`;
  return first + `${capital("b")}`;
}

// Methods no subclass can override: static and private.
export class Box {
  constructor(private w: number, private h: number) {}

  static unit(n: number): number {
    return n * RATE;
  }

  private inner(): number {
    return this.w * this.h;
  }

  volume(d: number): number {
    return this.inner() * d + Box.unit(d);
  }
}
