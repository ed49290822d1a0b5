import { DeclinedError, PaymentMethod } from "../payment";

// A credit card.
export class Card implements PaymentMethod {
  charged = 0;

  constructor(readonly last4: string) {}

  charge(amount: number): void {
    if (amount <= 0) throw new DeclinedError(`bad amount ${amount}`);
    this.charged += amount;
  }

  name(): string {
    return `card *${this.last4}`;
  }
}

// A card that also earns loyalty points.
export class PremiumCard extends Card {
  points = 0;

  override charge(amount: number): void {
    super.charge(amount);
    this.points += Math.floor(amount / 100);
  }
}
