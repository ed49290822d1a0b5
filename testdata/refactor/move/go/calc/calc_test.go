package calc_test

import (
	"testing"

	"example.com/moveshop/calc"
	"example.com/moveshop/geometry"
)

func TestTotal(t *testing.T) {
	if got, want := calc.Total(1, 2), geometry.Area(1)+geometry.Area(2); got != want {
		t.Fatalf("Total = %v, want %v", got, want)
	}
}
