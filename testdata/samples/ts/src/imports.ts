// Imports deliberately unsorted, with one unused import, for organize-imports tests.
import { visit } from "./graph";
import { utf8Len } from "./text";
import { Card } from "./methods/card";
import { normalize, process, type Order } from "./orders";

export function receipt(order: Order): string {
  const total = process(order);
  const card = new Card("0000");
  card.charge(total.amount);
  return `${normalize(order.id)}: ${total.amount} via ${card.name()} (${utf8Len(order.customer)})`;
}
