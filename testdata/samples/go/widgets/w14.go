package widgets

// Modal returns a modal widget showing label.
func Modal(label string) *Widget {
	w := NewWidget("modal")
	w.Label = label
	return w
}
