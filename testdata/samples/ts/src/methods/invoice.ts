import { PaymentMethod } from "../payment";

// Defers payment to a bill sent to the customer.
export class Invoice implements PaymentMethod {
  due: number[] = [];

  constructor(readonly number: number) {}

  charge(amount: number): void {
    this.due.push(amount);
  }

  name(): string {
    return `invoice #${this.number}`;
  }
}
