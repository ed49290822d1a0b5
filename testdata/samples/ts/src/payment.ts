// Ways a customer can pay.

export interface PaymentMethod {
  charge(amount: number): void;
  name(): string;
}

export class DeclinedError extends Error {}

export function chargeFirst(methods: PaymentMethod[], amount: number): PaymentMethod | undefined {
  for (const method of methods) {
    try {
      method.charge(amount);
      return method;
    } catch (err) {
      if (!(err instanceof DeclinedError)) throw err;
    }
  }
  return undefined;
}
