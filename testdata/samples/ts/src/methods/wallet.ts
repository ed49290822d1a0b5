import { DeclinedError, PaymentMethod } from "../payment";

// A prepaid balance.
export class Wallet implements PaymentMethod {
  constructor(public balance: number) {}

  charge(amount: number): void {
    if (amount > this.balance) throw new DeclinedError("insufficient balance");
    this.balance -= amount;
  }

  name(): string {
    return "wallet";
  }
}
