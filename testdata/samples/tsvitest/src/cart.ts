// A cart's lines and what they cost, in cents.

export interface Line {
  sku: string;
  cents: number;
  qty: number;
}

// subtotal adds the lines' prices.
export function subtotal(lines: Line[]): number {
  let sum = 0;
  for (const l of lines) {
    sum += l.cents * l.qty;
  }
  return sum;
}

// total takes a percentage off the subtotal, rounding down.
export function total(lines: Line[], percentOff = 0): number {
  const s = subtotal(lines);
  return s - Math.floor((s * percentOff) / 100);
}
