// Package store keeps circles; it imports geometry.
package store

import "example.com/moveshop/geometry"

// Shelf holds circles.
var Shelf = []geometry.Circle{geometry.Origin}
