function twice(x: number): number {
  return x * 2;
}

/** Doubles x, lazily. */
export function lazy(x: number): number {
  return twice(x);
}

export function other(x: number): number {
  return x + 1;
}
