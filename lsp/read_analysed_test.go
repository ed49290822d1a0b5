package lsp

import (
	"reflect"
	"testing"
)

// TestAnalysedKeys: a read sends read.lua the analysed servers of its own
// file's buffer only (the one its last open answered), none for a file of
// no known buffer (an empty map, not nil), and sees a server analysed
// since (awaitAnalysis's record) on its next read.
func TestAnalysedKeys(t *testing.T) {
	c := &Client{analysed: map[analysisKey]bool{{bufnr: 3, client: 1}: true, {bufnr: 3, client: 2}: true, {bufnr: 7, client: 1}: true}}
	if got := c.analysedKeys("/w/a.go"); got == nil || len(got) != 0 {
		t.Errorf("no buffer known: %v", got)
	}
	c.noteBuffer("/w/a.go", 3)
	c.noteBuffer("/w/b.go", 7)
	if got, want := c.analysedKeys("/w/a.go"), map[string]bool{"3:1": true, "3:2": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("a.go: %v, want %v", got, want)
	}
	if got, want := c.analysedKeys("/w/b.go"), map[string]bool{"7:1": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("b.go: %v, want %v", got, want)
	}
	// A buffer reopened under a new number, then analysed.
	c.noteBuffer("/w/b.go", 9)
	if got := c.analysedKeys("/w/b.go"); len(got) != 0 {
		t.Errorf("b.go in buffer 9, not analysed yet: %v", got)
	}
	c.markAnalysed(analysisKey{bufnr: 9, client: 4})
	if got, want := c.analysedKeys("/w/b.go"), map[string]bool{"9:4": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("b.go analysed in buffer 9: %v, want %v", got, want)
	}
}
