package widgets

// Checkbox returns a checkbox widget showing label.
func Checkbox(label string) *Widget {
	w := NewWidget("checkbox")
	w.Label = label
	return w
}
