// Package shop prices carts.
package shop

// Price returns the price of qty items of unit cents less discount percent.
// note is kept for the log and not used.
func Price(unit, qty int, discount int, note string) int {
	total := unit * qty
	return total - total*discount/100
}

// Describe builds a note (a call with a side effect: it counts).
func Describe(what string) string {
	described++
	return "note: " + what
}

var described int
