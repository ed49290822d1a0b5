package shop

import (
	"testing"

	"example.com/inline/geom"
)

func TestFloor(t *testing.T) {
	if got := Floor([]geom.Rect{{W: 2, H: 3}, {W: 1, H: 1}}); got != 7 {
		t.Fatalf("Floor = %d", got)
	}
	if a, b := Tiles(2), Tiles(2); a != 2 || b != 4 {
		t.Fatalf("Tiles = %d, %d (next() must run once per call)", a, b)
	}
	if got := Title("hall"); got != "HALL! FLOOR!" {
		t.Fatalf("Title = %q", got)
	}
}
