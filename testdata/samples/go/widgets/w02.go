package widgets

// Label returns a label widget showing label.
func Label(label string) *Widget {
	w := NewWidget("label")
	w.Label = label
	return w
}
