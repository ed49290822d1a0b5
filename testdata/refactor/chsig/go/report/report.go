// Package report prices and stores.
package report

import (
	"example.com/chsig/shop"
	"example.com/chsig/store"
)

// Run prices two orders and saves them.
func Run(s store.Store) (int, error) {
	a := shop.Price(100, 3, 0, "a")
	b := shop.Price(40, 2, 50, shop.Describe("b"))
	if err := s.Save("a", a); err != nil {
		return 0, err
	}
	return a + b, s.Save("b", b)
}

// Direct saves into a Mem without the interface.
func Direct(m *store.Mem) error {
	return m.Save("direct", shop.Price(1, 1, 0, "d"))
}

// Sale is x less 20%.
func Sale(x int) int {
	return shop.Discount(x, 20, "sale")
}
