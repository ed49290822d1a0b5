package geometry

import "math"

// Perimeter is the circle's perimeter.
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }

// Perimeter is the square's perimeter.
func (s *Square) Perimeter() float64 { return 4 * s.Side }
