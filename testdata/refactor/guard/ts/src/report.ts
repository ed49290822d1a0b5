import { total } from "./prices";

const sum = "Sum";

export function report(items: number[]): string {
  return `${sum}: ${total(items)}`;
}
