package shop

import "testing"

func TestPrice(t *testing.T) {
	if got := Price(250, 4, 10, "test"); got != 900 {
		t.Fatalf("Price = %d, want 900", got)
	}
	if got := Total([]Line{{Unit: 100, Qty: 20}, {Unit: 3, Qty: 1}}); got != 1903 {
		t.Fatalf("Total = %d, want 1903", got)
	}
}

func TestDiscount(t *testing.T) {
	if got := Discount(200, 10, "test"); got != 180 {
		t.Fatalf("Discount = %d, want 180", got)
	}
}
