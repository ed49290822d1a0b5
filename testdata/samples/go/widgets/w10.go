package widgets

// ProgressBar returns a progressbar widget showing label.
func ProgressBar(label string) *Widget {
	w := NewWidget("progressbar")
	w.Label = label
	return w
}
