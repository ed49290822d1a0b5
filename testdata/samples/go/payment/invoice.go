package payment

import "fmt"

// Invoice defers payment to a bill sent to the customer.
type Invoice struct {
	Number int
	Due    []int
}

// Charge implements Method.
func (i *Invoice) Charge(amount int) error {
	i.Due = append(i.Due, amount)
	return nil
}

// Name implements Method.
func (i *Invoice) Name() string { return fmt.Sprintf("invoice #%d", i.Number) }

var _ Method = (*Invoice)(nil)
