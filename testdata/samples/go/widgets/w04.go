package widgets

// Slider returns a slider widget showing label.
func Slider(label string) *Widget {
	w := NewWidget("slider")
	w.Label = label
	return w
}
