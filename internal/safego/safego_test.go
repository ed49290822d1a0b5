package safego

import (
	"strings"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

func TestRecoverToError(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	SetLogf(func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged.WriteString(format)
	})
	defer SetLogf(nil)

	err := Call("step", func() { panic("boom\nsecond line") })
	e := apierr.As(err)
	if e.Code != apierr.OperationFailed || e.Message != "internal error in step: boom" {
		t.Fatalf("err = %v, want OPERATION_FAILED with a one-line message", err)
	}
	if err := Call("step", func() {}); err != nil {
		t.Fatalf("no panic: %v", err)
	}

	got := make(chan error, 1)
	Go("worker", func() {
		var m map[string]int
		//lint:ignore SA5000 a nil map write: a real runtime panic, which the test checks is recovered
		m["x"] = 1
	}, func(err error) { got <- err })
	if e := apierr.As(<-got); e.Code != apierr.OperationFailed || !strings.Contains(e.Message, "worker") ||
		strings.Contains(e.Message, "goroutine") {
		t.Fatalf("Go: %v", e)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "recovered panic") {
		t.Fatalf("the panics were not logged: %q", logged.String())
	}
}
