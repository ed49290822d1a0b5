package lsp

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskLines: lines read from the disk as Neovim would show them (CRLF
// endings dropped, a last line without a newline kept, a line longer than
// the read buffer whole), only those wanted, none from a missing file or
// one that is not a regular file.
func TestDiskLines(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 200<<10)
	files := map[string]string{
		"crlf.txt":  "one\r\ntwo\r\nthree",
		"long.txt":  "a\n" + long + "\nb\n",
		"emoji.txt": "\n😀 é\n",
		"empty.txt": "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		file  string
		lines []int
		want  map[int]string
	}{
		{"crlf.txt", []int{0, 2, 5}, map[int]string{0: "one", 2: "three"}},
		{"long.txt", []int{1, 2, 3}, map[int]string{1: long, 2: "b"}},
		{"emoji.txt", []int{1}, map[int]string{1: "😀 é"}},
		{"empty.txt", []int{0}, map[int]string{}},
		{"missing.txt", []int{0}, map[int]string{}},
		{"fifo", []int{0}, map[int]string{}}, // not opened: the open would block
	}
	for _, c := range cases {
		got := diskLines(filepath.Join(dir, c.file), c.lines)
		if !maps.Equal(got, c.want) {
			t.Errorf("%s %v: got %d lines, want %d (%v)", c.file, c.lines, len(got), len(c.want), got[0])
		}
	}
}
