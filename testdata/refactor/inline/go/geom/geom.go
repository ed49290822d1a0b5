// Package geom: the functions inline_function's tests inline (Area has call
// sites in geom, geom's tests, shop and main; Fact is recursive).
package geom

import "strings"

// Rect is a w×h rectangle.
type Rect struct{ W, H int }

// Area returns the area of a w×h rectangle.
func Area(w, h int) int {
	return w * h
}

// Label names a rectangle.
func Label(name string) string { return strings.ToUpper(name) + "!" }

// Size is r's area.
func (r Rect) Size() int { return Area(r.W, r.H) }

// Fact is n! (recursive: not inlined).
func Fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * Fact(n-1)
}
