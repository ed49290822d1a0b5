import { area, Circle } from "./geometry";

export function line(r: number): string {
  return `r=${r} area=${area(r).toFixed(2)}`;
}

export function circle(c: Circle): string {
  return `circle area=${c.area().toFixed(2)}`;
}
