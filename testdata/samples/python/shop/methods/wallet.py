from shop.payment import DeclinedError, PaymentMethod


class Wallet(PaymentMethod):
    """A prepaid balance."""

    def __init__(self, balance: int) -> None:
        self.balance = balance

    def charge(self, amount: int) -> None:
        if amount > self.balance:
            raise DeclinedError(amount)
        self.balance -= amount

    def name(self) -> str:
        return "wallet"
