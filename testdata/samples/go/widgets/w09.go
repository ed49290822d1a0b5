package widgets

// Avatar returns a avatar widget showing label.
func Avatar(label string) *Widget {
	w := NewWidget("avatar")
	w.Label = label
	return w
}
