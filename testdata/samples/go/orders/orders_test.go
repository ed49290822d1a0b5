package orders

import "testing"

func TestProcess(t *testing.T) {
	o := Order{ID: "t-1", Lines: []Line{{SKU: "pen", Qty: 2, UnitPrice: 150}}}
	got, err := Process(o)
	if err != nil {
		t.Fatal(err)
	}
	if got.Amount != 300 || got.Items != 2 {
		t.Fatalf("Process(%v) = %+v, want {300 2}", o, got)
	}
	if _, err := Process(Order{}); err != ErrEmpty {
		t.Fatalf("empty order: err = %v, want ErrEmpty", err)
	}
}
