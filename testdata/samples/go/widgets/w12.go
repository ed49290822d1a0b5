package widgets

// Tabs returns a tabs widget showing label.
func Tabs(label string) *Widget {
	w := NewWidget("tabs")
	w.Label = label
	return w
}
