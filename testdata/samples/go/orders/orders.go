// Package orders validates orders and computes their totals.
package orders

import (
	"errors"
	"strings"
)

// Line is one item of an order.
type Line struct {
	SKU       string
	Qty       int
	UnitPrice int // in cents
}

// Order is a customer's basket.
type Order struct {
	ID       string
	Customer string
	Lines    []Line
}

// Total is the result of processing an order.
type Total struct {
	Amount int
	Items  int
}

// ErrEmpty is returned for orders without lines.
var ErrEmpty = errors.New("orders: empty order")

// Process validates o and computes its total.
func Process(o Order) (Total, error) {
	if len(o.Lines) == 0 {
		return Total{}, ErrEmpty
	}
	var t Total
	for _, l := range o.Lines {
		t.Add(l)
	}
	return t, nil
}

// Add accumulates one line into the total.
func (t *Total) Add(l Line) {
	t.Amount += l.Qty * l.UnitPrice
	t.Items += l.Qty
}

// IsZero reports whether nothing was added.
func (t Total) IsZero() bool {
	return t.Amount == 0 && t.Items == 0
}

// Normalize cleans up an order ID such as " a-1 " -> "A-1".
func Normalize(s string) string {
	return strings.ToUpper(strings.TrimSpace(s))
}
