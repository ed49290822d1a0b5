import { describe, expect, test } from "vitest";
import { subtotal, total } from "./cart";

const lines = [
  { sku: "pen", cents: 150, qty: 2 },
  { sku: "pad", cents: 400, qty: 1 },
];

describe("cart", () => {
  test("subtotal", () => {
    expect(subtotal(lines)).toBe(700);
  });

  test("total with a discount", () => {
    expect(total(lines, 10)).toBe(630);
  });

  test("empty", () => {
    expect(total([])).toBe(0);
  });
});
