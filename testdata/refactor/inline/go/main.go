package main

import (
	"fmt"

	"example.com/inline/geom"
	"example.com/inline/shop"
)

// areaOf is geom.Area used as a value: never inlined.
var areaOf = geom.Area

func main() {
	fmt.Println(geom.Area(3, 4), areaOf(1, 2), shop.Floor(nil), geom.Fact(4))
}
