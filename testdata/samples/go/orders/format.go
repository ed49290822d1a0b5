package orders

import "strings"

import "fmt"

// Summary renders a one-line description of a processed order.
func Summary(o Order, t Total) string {
	name := strings.TrimSpace(o.Customer)
	return fmt.Sprintf("%s for %s: %d items, %d cents", Normalize(o.ID), name, t.Items, t.Amount)
}
