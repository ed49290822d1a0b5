package widgets

// Panel returns a panel widget showing label.
func Panel(label string) *Widget {
	w := NewWidget("panel")
	w.Label = label
	return w
}
