// Command shop is a tiny order-processing app used as an LSP test fixture.
package main

import (
	"fmt"
	"log"

	"example.com/shop/config"
	"example.com/shop/graph"
	"example.com/shop/orders"
	"example.com/shop/payment"
	"example.com/shop/refactor"
	"example.com/shop/text"
	"example.com/shop/widgets"
)

func main() {
	cfg, err := config.LoadConfig("currency=EUR\ntax=20")
	if err != nil {
		log.Fatal(err)
	}

	order := orders.Order{ID: "A-1", Customer: text.Normalize("  Ada "), Lines: []orders.Line{
		{SKU: "pen", Qty: 3, UnitPrice: 150},
		{SKU: "pad", Qty: 1, UnitPrice: 400},
	}}
	total, err := orders.Process(order)
	if err != nil {
		log.Fatal(err)
	}

	var method payment.Method = payment.NewCard("4242")
	if err := method.Charge(total.Amount); err != nil {
		log.Fatal(err)
	}
	fmt.Println(orders.Summary(order, total), cfg.Currency, method.Name())

	tree := &graph.Node{Name: "root", Children: []*graph.Node{{Name: "leaf"}}}
	fmt.Println(graph.Visit(tree, 0))
	fmt.Println(text.Greet("Ada"), text.Describe("label"))
	fmt.Println(refactor.Invoice(order.Lines, cfg.TaxPercent))

	ws := []*widgets.Widget{widgets.NewWidget("banner"), widgets.Button("Buy"), widgets.Chip("new")}
	fmt.Println(widgets.All(ws...))
}
