export function total(items: number[]): number {
  return items.reduce((a, b) => a + b, 0);
}

export function average(items: number[]): number {
  return items.length === 0 ? 0 : total(items) / items.length;
}
