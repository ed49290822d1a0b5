package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestRefactoringSnapshotsOnce: a refactoring reads each file it changes
// once: the snapshots its plan was made from are the ones the changeset
// engine checks (and the apply still compares each file with them where
// it writes: a user edit in between is a CONFLICT, tested elsewhere). A
// rename reads the file it was asked in with its read (read.lua, while the
// server computes it), the others its edit changes after in one call: two
// snapshots, each file in one.
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
	var out struct {
		AffectedFiles []string `json:"affected_files"`
	}
	if err := json.Unmarshal(body, &out); err != nil || len(out.AffectedFiles) != 4 {
		t.Fatalf("rename_symbol: affected %v (%v), want 4 files", out.AffectedFiles, err)
	}
	calls, files := 0, 0
	for _, e := range s.Trace() {
		if !e.At.Before(since) && strings.Contains(e.Text, "nvbridge.snapshot.files(") {
			calls++
			var n int
			if _, err := fmt.Sscanf(e.Text[strings.Index(e.Text, "files(")+len("files("):], "[%d strings]", &n); err != nil {
				t.Fatalf("trace entry %q: %v", e.Text, err)
			}
			files += n
		}
	}
	if calls != 2 || files != len(out.AffectedFiles) {
		t.Fatalf("a rename preview snapshotted %d files in %d calls, want its %d files, each once, in 2 calls", files, calls, len(out.AffectedFiles))
	}
}
