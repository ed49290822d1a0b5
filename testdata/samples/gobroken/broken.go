// Package broken deliberately fails to compile; it feeds diagnostics tests.
package broken

// Quantity returns how many items were ordered.
func Quantity() int {
	var count int = "three"
	unused := 42
	return count
}
