package widgets

// Button returns a button widget showing label.
func Button(label string) *Widget {
	w := NewWidget("button")
	w.Label = label
	return w
}
