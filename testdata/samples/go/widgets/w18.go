package widgets

// Stepper returns a stepper widget showing label.
func Stepper(label string) *Widget {
	w := NewWidget("stepper")
	w.Label = label
	return w
}
