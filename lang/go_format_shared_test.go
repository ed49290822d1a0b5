package lang

import (
	"sync"
	"testing"
)

// TestFormatKeepsSharedCalls: a FormatKeeps kept is called by renames
// side by side (refactor keeps it between renames); an offset in a part its parse skipped parses the whole
// file once, whichever call gets there first (go test -race).
func TestFormatKeepsSharedCalls(t *testing.T) {
	src := "package p\n\nfunc f() {\n\tab := 1\n\t_ = ab\n}\n\nfunc g() {\n\tcd := 1\n\t_ = cd\n}\n"
	at := []int{len("package p\n\nfunc f() {\n\tab := 1\n\t_ = ab\n}\n\nfunc g() {\n\t")}
	if src[at[0]:at[0]+2] != "cd" {
		t.Fatal("the test's text moved")
	}
	keeps := goFormatKeepsOf(src, "ab")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !keeps(at, "cde") {
				t.Error("a plain variable in a body the parse skipped: gofmt keeps it")
			}
		}()
	}
	wg.Wait()
}
