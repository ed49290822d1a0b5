package main

import (
	"fmt"

	"example.com/chsig/report"
	"example.com/chsig/shop"
	"example.com/chsig/store"
)

func main() {
	total, err := report.Run(&store.Mem{})
	fmt.Println("total é 🙂", total, err, shop.Price(7, 7, 0, "main"))
	price := shop.Price // used as a value
	_ = price
	fmt.Println(shop.Discount(100, 5, "main"), report.Sale(10))
}
