package widgets

// TextField returns a textfield widget showing label.
func TextField(label string) *Widget {
	w := NewWidget("textfield")
	w.Label = label
	return w
}
