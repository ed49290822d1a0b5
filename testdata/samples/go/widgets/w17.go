package widgets

// Pagination returns a pagination widget showing label.
func Pagination(label string) *Widget {
	w := NewWidget("pagination")
	w.Label = label
	return w
}
