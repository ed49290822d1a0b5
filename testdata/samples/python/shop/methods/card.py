from shop.payment import DeclinedError, PaymentMethod


class Card(PaymentMethod):
    """A credit card."""

    def __init__(self, last4: str) -> None:
        self.last4 = last4
        self.charged = 0

    def charge(self, amount: int) -> None:
        if amount <= 0:
            raise DeclinedError(amount)
        self.charged += amount

    def name(self) -> str:
        return "card *" + self.last4


class PremiumCard(Card):
    """A card that also earns loyalty points."""

    def __init__(self, last4: str) -> None:
        super().__init__(last4)
        self.points = 0

    def charge(self, amount: int) -> None:
        super().charge(amount)
        self.points += amount // 100
