// Command inventory is the debugger's test subject (dap and tools tests).
// Tests find lines by their "bp:" markers, never by number.
package main

import (
	"fmt"
	"os"
	"time"
)

// Owner owns an item.
type Owner struct {
	Name string
}

// Item is a struct with a slice and a pointer, to expand in a debugger.
type Item struct {
	Name  string
	Qty   int
	Tags  []string
	Owner *Owner
}

// restock adds n to every item's quantity and returns the new total.
func restock(items []Item, n int) int {
	total := 0
	for i := range items {
		items[i].Qty += n // bp:loop
		total += items[i].Qty
	}
	return total // bp:return
}

func ownerName(it *Item) string {
	return it.Owner.Name // bp:panic (a nil pointer dereference with "crash")
}

func double(x int) int {
	y := x * 2 // bp:double
	return y
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "wait" {
		time.Sleep(time.Hour) // bp:wait (runs until paused or stopped)
	}
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		fmt.Println(ownerName(nil))
	}
	items := []Item{
		{Name: "pen", Qty: 3, Tags: []string{"office", "blue"}, Owner: &Owner{Name: "Ada"}},
		{Name: "pad", Qty: 1},
		{Name: "ink", Qty: 7},
	}
	// bp:nocode (a comment: no code on this line)
	total := restock(items, 2) // bp:call
	d := double(total)         // bp:after
	fmt.Println("total", total, "double", d)
	fmt.Fprintln(os.Stderr, "inventory: done")
	os.Exit(3) // bp:exit
}
