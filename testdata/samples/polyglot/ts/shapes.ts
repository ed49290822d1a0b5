export function area(w: number, h: number): number {
  return w * h;
}

export const total: number = area(2, 3);
export const label: number = "total";
