package widgets

// Divider returns a divider widget showing label.
func Divider(label string) *Widget {
	w := NewWidget("divider")
	w.Label = label
	return w
}
