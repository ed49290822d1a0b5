package widgets

// Tooltip returns a tooltip widget showing label.
func Tooltip(label string) *Widget {
	w := NewWidget("tooltip")
	w.Label = label
	return w
}
