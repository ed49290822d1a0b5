// Package report prints areas.
package report

import (
	"fmt"

	"example.com/moveshop/geometry"
)

// Line reports one disc.
func Line(r float64) string {
	return fmt.Sprintf("r=%g area=%.2f", r, geometry.Area(r))
}

// Circle reports a circle.
func Circle(c geometry.Circle) string {
	return fmt.Sprintf("%s area=%.2f", c, c.Area())
}

// Square reports a square.
func Square(s geometry.Square) string {
	return fmt.Sprintf("square area=%.2f perimeter=%.2f", s.Area(), s.Perimeter())
}
