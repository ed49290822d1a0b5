package payment

// Card is a credit card; it supports refunds.
type Card struct {
	Last4   string
	charged int
}

// NewCard returns a card ending in last4.
func NewCard(last4 string) *Card {
	return &Card{Last4: last4}
}

// Charge implements Method.
func (c *Card) Charge(amount int) error {
	if amount <= 0 {
		return ErrDeclined
	}
	c.charged += amount
	return nil
}

// Name implements Method.
func (c *Card) Name() string { return "card *" + c.Last4 }

// Refund implements RefundableMethod.
func (c *Card) Refund(amount int) error {
	if amount > c.charged {
		return ErrDeclined
	}
	c.charged -= amount
	return nil
}

var _ RefundableMethod = (*Card)(nil)
