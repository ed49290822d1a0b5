package widgets

// Toast returns a toast widget showing label.
func Toast(label string) *Widget {
	w := NewWidget("toast")
	w.Label = label
	return w
}
