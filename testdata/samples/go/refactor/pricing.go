// Package refactor holds code that is a good target for extract/inline refactorings.
package refactor

import (
	"fmt"

	"example.com/shop/orders"
)

// Invoice renders a priced invoice for lines with the given tax rate.
func Invoice(lines []orders.Line, taxPercent int) string {
	header := "INVOICE"
	subtotal := 0
	for _, l := range lines {
		subtotal += l.Qty * l.UnitPrice
	}
	tax := taxOf(subtotal, taxPercent)
	discount := 0
	if subtotal > 1000 {
		discount = subtotal / 10
	}
	total := subtotal + tax - discount
	return fmt.Sprintf("%s\nsubtotal %s\ntax %s\ntotal %s", header, cents(subtotal), cents(tax), cents(total))
}

// taxOf computes the tax on subtotal; it is called from exactly one place.
func taxOf(subtotal, percent int) int {
	return subtotal * percent / 100
}

// cents formats an amount of cents as euros.
func cents(amount int) string {
	return fmt.Sprintf("%d.%02d", amount/100, amount%100)
}
