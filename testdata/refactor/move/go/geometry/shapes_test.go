package geometry

import "testing"

func TestArea(t *testing.T) {
	if got := Area(0); got != 0 {
		t.Fatalf("Area(0) = %v", got)
	}
	if Origin.Area() <= 3 {
		t.Fatal("unit circle too small")
	}
}
