package widgets

// Breadcrumb returns a breadcrumb widget showing label.
func Breadcrumb(label string) *Widget {
	w := NewWidget("breadcrumb")
	w.Label = label
	return w
}
