// Package widgets builds the storefront UI elements.
package widgets

import "strings"

// Widget is a rendered UI element.
type Widget struct {
	Kind  string
	Label string
}

// NewWidget returns a widget of the given kind.
func NewWidget(kind string) *Widget {
	return &Widget{Kind: kind}
}

// All renders every widget, one per line.
func All(ws ...*Widget) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		parts = append(parts, w.Kind+":"+w.Label)
	}
	return strings.Join(parts, "\n")
}
