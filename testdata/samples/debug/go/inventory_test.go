package main

import "testing"

func TestRestock(t *testing.T) {
	items := []Item{{Name: "cup", Qty: 1}, {Name: "mug", Qty: 2}}
	got := restock(items, 4) // bp:test
	if got != 11 {
		t.Fatalf("restock = %d, want 11", got)
	}
}

func TestDouble(t *testing.T) {
	if double(2) != 4 {
		t.Fatal("double(2) != 4")
	}
}
