package widgets

// Badge returns a badge widget showing label.
func Badge(label string) *Widget {
	w := NewWidget("badge")
	w.Label = label
	return w
}
