package widgets

// Chip returns a chip widget showing label.
func Chip(label string) *Widget {
	w := NewWidget("chip")
	w.Label = label
	return w
}
