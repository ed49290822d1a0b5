package main

import (
	"fmt"

	"example.com/moveshop/calc"
	"example.com/moveshop/geometry"
	"example.com/moveshop/report"
	"example.com/moveshop/store"
)

func main() {
	fmt.Println(calc.Total(1, 2), geometry.Area(3))
	fmt.Println(report.Line(2), report.Circle(geometry.Origin), len(store.Shelf))
	fmt.Println(report.Square(geometry.Square{Side: 2}), geometry.Square{Side: 1}.Area())
}
