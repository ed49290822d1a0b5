package widgets

// Dropdown returns a dropdown widget showing label.
func Dropdown(label string) *Widget {
	w := NewWidget("dropdown")
	w.Label = label
	return w
}
