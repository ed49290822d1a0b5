// Package shop prices floors.
package shop

import "example.com/inline/geom"

var counted int

func next() int {
	counted++
	return counted
}

// Floor is the total area of rooms.
func Floor(rooms []geom.Rect) int {
	total := 0
	for _, r := range rooms {
		total += geom.Area(r.W, r.H)
	}
	return total
}

// Tiles is a strip of n tiles, one longer each time.
func Tiles(n int) int { return geom.Area(n, next()) }

// Title labels a floor.
func Title(name string) string { return geom.Label(name) + " " + geom.Label("floor") }
