package lsp

import (
	"context"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// TestRunBoundedRecovers: a step that panics is reported as that step's
// error (the other steps run to the end), never the end of the process.
func TestRunBoundedRecovers(t *testing.T) {
	safego.SetLogf(t.Logf) // the stacks go to the test's log
	defer safego.SetLogf(nil)
	for _, limit := range []int{1, 2, 0} {
		ran := make([]bool, 4)
		panics := runBounded(context.Background(), 4, limit, func(i int) {
			if i == 1 {
				panic("bad answer")
			}
			ran[i] = true
		})
		if len(panics) != 4 || panics[1] == nil || panics[0] != nil || panics[2] != nil || !ran[0] || !ran[2] || !ran[3] {
			t.Fatalf("limit %d: panics %v, ran %v", limit, panics, ran)
		}
		if apierr.CodeOf(panics[1]) != apierr.OperationFailed {
			t.Fatalf("limit %d: %v, want OPERATION_FAILED", limit, panics[1])
		}
	}
}
