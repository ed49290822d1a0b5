// Package mathx holds small helpers.
package mathx

// Sq is x*x.
func Sq(x float64) float64 { return x * x }
