import * as pricing from "./pricing";
import { describe, MemStore, price, Store } from "./pricing";

export function run(store: Store): number {
  const a = "é🙂".length * 0 + price(100, 3, 0, "a");
  const b = pricing.price(40, 2, 50, describe("b"));
  store.save("a", a);
  store.save("b", b);
  return a + b;
}

export function direct(): MemStore {
  const m = new MemStore();
  m.save("direct", price(1, 1));
  return m;
}

export const PRICER = price;
