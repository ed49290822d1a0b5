package shop

// Discount takes percent off total. reason is not used (gopls can remove
// it: Discount is only ever called).
func Discount(total, percent int, reason string) int {
	return total - total*percent/100
}
