// Package calc sums areas.
package calc

import (
	"strings"

	"example.com/moveshop/geometry"
)

// Total sums the areas of discs.
func Total(radii ...float64) float64 {
	sum := 0.0
	for _, r := range radii {
		sum += geometry.Area(r)
	}
	return sum * geometry.Scale
}

// Twice is two discs.
func Twice(r float64) float64 { return 2 * geometry.Area(r) }

// Label names a circle.
func Label(c geometry.Circle) string { return strings.ToUpper(c.String()) }
