package geom

import "testing"

func TestArea(t *testing.T) {
	if got := Area(2, 3); got != 6 {
		t.Fatalf("Area(2, 3) = %d", got)
	}
	if got := (Rect{W: 4, H: 5}).Size(); got != 20 {
		t.Fatalf("Size = %d", got)
	}
	if got := Fact(5); got != 120 {
		t.Fatalf("Fact(5) = %d", got)
	}
}
