// Code that is a good target for extract/inline refactorings.
import type { Line } from "./orders";

export function invoice(lines: Line[], taxPercent: number): string {
  const header = "INVOICE";
  let subtotal = 0;
  for (const line of lines) {
    subtotal += line.qty * line.unitPrice;
  }
  const tax = taxOf(subtotal, taxPercent);
  const discount = subtotal > 1000 ? Math.floor(subtotal / 10) : 0;
  const total = subtotal + tax - discount;
  return `${header}\nsubtotal ${cents(subtotal)}\ntax ${cents(tax)}\ntotal ${cents(total)}`;
}

// Called from exactly one place: an inline candidate.
function taxOf(subtotal: number, percent: number): number {
  return Math.floor((subtotal * percent) / 100);
}

function cents(amount: number): string {
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, "0")}`;
}
