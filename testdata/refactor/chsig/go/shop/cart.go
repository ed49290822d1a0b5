package shop

// Line is one line of a cart.
type Line struct {
	Unit, Qty int
}

// Total sums the cart's lines, with a discount on big lines.
func Total(lines []Line) int {
	sum := 0
	for _, l := range lines {
		if l.Qty > 10 {
			sum += Price(l.Unit, l.Qty, 5, "bulk")
		} else {
			sum += Price(l.Unit,
				l.Qty,
				0,
				"",
			)
		}
	}
	return sum
}
