// Entry point of the tiny shop app.
import { loadConfig } from "./config";
import { invoice } from "./extract";
import { visit } from "./graph";
import { receipt } from "./imports";
import { Card } from "./methods/card";
import { process, type Order } from "./orders";
import { describe, greet, normalize } from "./text";

declare const console: { log(...args: unknown[]): void };

const cfg = loadConfig("currency=EUR\ntax=20");
const order: Order = {
  id: "A-1",
  customer: normalize("  Ada "),
  lines: [
    { sku: "pen", qty: 3, unitPrice: 150 },
    { sku: "pad", qty: 1, unitPrice: 400 },
  ],
};
const total = process(order);
const card = new Card("4242");
card.charge(total.amount);
console.log(order.customer, total.amount, cfg.currency, card.name());
console.log(visit({ name: "root", children: [{ name: "leaf", children: [] }] }));
console.log(greet("Ada"), describe("label"));
console.log(invoice(order.lines, cfg.taxPercent));
console.log(receipt(order));
