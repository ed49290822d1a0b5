// Validate orders and compute their totals.

export interface Line {
  sku: string;
  qty: number;
  unitPrice: number; // in cents
}

export interface Order {
  id: string;
  customer: string;
  lines: Line[];
}

export class Total {
  amount = 0;
  items = 0;

  add(line: Line): void {
    this.amount += line.qty * line.unitPrice;
    this.items += line.qty;
  }
}

export function process(order: Order): Total {
  if (order.lines.length === 0) {
    throw new Error(`order ${order.id} is empty`);
  }
  const total = new Total();
  for (const line of order.lines) {
    total.add(line);
  }
  return total;
}

export function processBatch(batch: Order[]): number {
  let amount = 0;
  for (const order of batch) {
    amount += process(order).amount;
  }
  return amount;
}

// normalize cleans up an order id such as " a-1 " -> "A-1".
export function normalize(id: string): string {
  return id.trim().toUpperCase();
}
