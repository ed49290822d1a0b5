package payment

// Wallet is a prepaid balance.
type Wallet struct {
	Balance int
}

// Charge implements Method.
func (w *Wallet) Charge(amount int) error {
	if amount > w.Balance {
		return ErrDeclined
	}
	w.Balance -= amount
	return nil
}

// Name implements Method.
func (w *Wallet) Name() string { return "wallet" }

var _ Method = (*Wallet)(nil)
