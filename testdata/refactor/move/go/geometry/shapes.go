// Package geometry holds the shapes of the move_symbol sample.
package geometry

import (
	"fmt"
	"math"
)

// Scale multiplies every area.
const Scale = 1.0

// Area returns the area of a disc of radius r.
func Area(r float64) float64 {
	return math.Pi * r * r
}

// Circle is a disc.
type Circle struct {
	R float64
}

// Area is the circle's area.
func (c Circle) Area() float64 { return Area(c.R) }

// String names the circle.
func (c Circle) String() string { return fmt.Sprintf("circle(%g)", clamp(c.R)) }

// clamp keeps radii positive.
func clamp(r float64) float64 {
	if r < 0 {
		return 0
	}
	return r
}

// Square is a square; its method set is split over two files.
type Square struct {
	Side float64
}

// Area is the square's area.
func (s Square) Area() float64 { return s.Side * s.Side * Scale }

// Origin is the unit circle.
var Origin = Circle{R: 1}
