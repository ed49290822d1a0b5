// Package payment defines the ways a customer can pay.
package payment

import "errors"

// ErrDeclined is returned when a charge is refused.
var ErrDeclined = errors.New("payment: declined")

// Method charges a customer.
type Method interface {
	Charge(amount int) error
	Name() string
}

// RefundableMethod is a Method that can also give money back.
type RefundableMethod interface {
	Method
	Refund(amount int) error
}

// ChargeAll charges amount with the first method that accepts it.
func ChargeAll(methods []Method, amount int) (Method, error) {
	for _, m := range methods {
		if err := m.Charge(amount); err == nil {
			return m, nil
		}
	}
	return nil, ErrDeclined
}
