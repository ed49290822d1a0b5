package tools_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestRefactoringSnapshotsOnce: a refactoring reads each file it changes
// once: the snapshots its plan was made from are the ones the changeset
// engine checks (and the apply still compares each file with them where
// it writes: a user edit in between is a CONFLICT, tested elsewhere).
func TestRefactoringSnapshotsOnce(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	env := tools.NewEnv(s, client, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	const rename = `{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"ProcessOrder"}`
	if res := mcpCall(t, c, "rename_symbol", rename); res.IsError { // warm
		t.Fatalf("rename_symbol: %v", res.Content)
	}
	since := time.Now()
	res := mcpCall(t, c, "rename_symbol", rename)
	body, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(body), "+func ProcessOrder(") {
		t.Fatalf("rename_symbol: %v", res.Content)
	}
	snapshots := 0
	for _, e := range s.Trace() {
		if !e.At.Before(since) && strings.Contains(e.Text, "nvbridge.snapshot.files(") {
			snapshots++
		}
	}
	if snapshots != 1 {
		t.Fatalf("a rename preview snapshotted its files %d times, want once", snapshots)
	}
}
