// Prices.

export function price(unit: number, qty: number, discount = 0, note?: string): number {
  const total = unit * qty;
  return total - (total * discount) / 100;
}

export function describe(what: string): string {
  console.log("describing", what);
  return "note: " + what;
}

export interface Store {
  save(key: string, value: number): void;
}

export class MemStore implements Store {
  data: Record<string, number> = {};
  save(key: string, value: number): void {
    this.data[key] = value;
  }
}

export class LogStore implements Store {
  lines: string[] = [];
  save(k: string, v: number): void {
    this.lines.push(`${k}=${v}`);
  }
}
