package widgets

// Spinner returns a spinner widget showing label.
func Spinner(label string) *Widget {
	w := NewWidget("spinner")
	w.Label = label
	return w
}
