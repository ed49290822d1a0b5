package nvim_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// TestStartsTogetherTakeOneRoundTrip: operations started together go to
// Neovim in one call, each answers on its own, and one that fails in Lua
// fails alone.
// textWorkspace is a session on a workspace holding one text file (no
// server attaches to it), and that file's path.
func textWorkspace(t *testing.T, text string) (*nvim.Session, string) {
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := testenv.Embedded(t, root)
	return s, path
}

func TestStartsTogetherTakeOneRoundTrip(t *testing.T) {
	s, path := textWorkspace(t, "no server for this\n")
	ctx := testenv.Context(t)
	if _, err := s.OpenWait(ctx, path, true, -1, 0, nil); err != nil {
		t.Fatal(err)
	}
	b := bufnr(t, s, path)

	before := s.RoundTrips()
	open := []any{path, true, 0, 0, nil}
	results, errs := nvim.StartTogether(ctx, s, nvim.LuaOpenWait, [][]any{open, open, open})
	if got := s.RoundTrips() - before; got != 1 {
		t.Fatalf("three starts took %d round trips", got)
	}
	for i := range results {
		if errs[i] != nil || !strings.Contains(string(results[i]), `"clients":[]`) || !strings.Contains(string(results[i]), `"line":"no server for this"`) {
			t.Fatalf("start %d: %s, %v (want no clients and the line)", i, results[i], errs[i])
		}
	}

	// A request whose params are not JSON raises in Lua: that start fails
	// (OPERATION_FAILED, through nvbridge_done), the next still answers.
	results, errs = nvim.StartTogether(ctx, s, nvim.LuaRequest, [][]any{{b, 0, "textDocument/hover", "{not json"}, {b, 0, "textDocument/hover", `{"position":{"line":0,"character":0}}`}})
	if apierr.CodeOf(errs[0]) != apierr.OperationFailed || !strings.Contains(errs[0].Error(), "invalid token") {
		t.Fatalf("bad start: %v", errs[0])
	}
	if apierr.CodeOf(errs[1]) != apierr.Unsupported {
		t.Fatalf("good start after a bad one: %s, %v (want UNSUPPORTED: no server attached)", results[1], errs[1])
	}
}

// TestConcurrentAsyncAllAnswer: many callers starting at once (batched as
// they queue) each get their own answer.
func TestConcurrentAsyncAllAnswer(t *testing.T) {
	s, path := textWorkspace(t, "text\n")
	ctx := testenv.Context(t)
	const callers = 40
	var wg sync.WaitGroup
	errs := make([]error, callers)
	lines := make([]string, callers)
	before := s.RoundTrips()
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, err := s.OpenWait(ctx, path, true, 0, 0, nil)
			errs[i], lines[i] = err, string(raw)
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || !strings.Contains(lines[i], `"line":"text"`) {
			t.Fatalf("caller %d: %s, %v", i, lines[i], errs[i])
		}
	}
	if got := s.RoundTrips() - before; got > callers {
		t.Fatalf("%d starts took %d round trips", callers, got)
	}
	t.Logf("%d concurrent starts: %d round trips", callers, s.RoundTrips()-before)
}
