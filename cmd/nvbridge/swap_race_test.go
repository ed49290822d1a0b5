package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestSwapRaceOverMCP is the attacker's loop through the real server: a
// folder race/ inside the root and a symlink racelnk to a folder outside
// are swapped (renameat2 RENAME_EXCHANGE) as fast as the machine allows,
// while an agent over MCP stdio edits race/f.txt (edit_buffer, preview
// false, save true) and creates race/newN.txt (apply_patch, save true).
// Most calls are refused, some land inside; no file outside may ever be
// created or changed. NVBRIDGE_SWAP_ROUNDS sets the rounds (make fuzz runs
// 2,000).
func TestSwapRaceOverMCP(t *testing.T) {
	testenv.Require(t, "nvim")
	rounds := 60
	if v := os.Getenv("NVBRIDGE_SWAP_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		rounds = n
	}
	root, outside := t.TempDir(), t.TempDir()
	for dir, files := range map[string]map[string]string{
		root:    {"race/f.txt": "inside\n"},
		outside: {"f.txt": "outside\n", "keep.txt": "keep\n"},
	} {
		for rel, content := range files {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "racelnk")); err != nil {
		t.Fatal(err)
	}
	p := start(t, nil, "--root", root, "mcp")
	p.initialize()

	dirfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dirfd)
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if err := unix.Renameat2(dirfd, "race", dirfd, "racelnk", unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps.Add(1)
			// Irregular pauses, from none to a call's length: calls meet
			// the folder in every state, some get through whole.
			if n := rand.IntN(8); n < 4 {
				time.Sleep(time.Duration(n) * 250 * time.Microsecond)
			}
		}
	}()
	landed := 0
	id := 1
	for i := 0; i < rounds; i++ {
		id++
		res := p.call(id, "tools/call", map[string]any{"name": "edit_buffer", "arguments": map[string]any{
			"file": "race/f.txt", "preview": false, "save": true,
			"edits": []map[string]any{{"line_start": 1, "line_end": 1, "new_text": fmt.Sprintf("round %d", i)}},
		}})
		if res["isError"] != true {
			landed++
		}
		id++
		res = p.call(id, "tools/call", map[string]any{"name": "apply_patch", "arguments": map[string]any{
			"patch": fmt.Sprintf("--- /dev/null\n+++ b/race/new%d.txt\n@@ -0,0 +1 @@\n+pwned %d\n", i, i), "preview": false, "save": true,
		}})
		if res["isError"] != true {
			landed++
		}
	}
	stop.Store(true)
	wg.Wait()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 {
		t.Errorf("the folder outside the root now holds %v", names)
	}
	for name, want := range map[string]string{"f.txt": "outside\n", "keep.txt": "keep\n"} {
		if b, _ := os.ReadFile(filepath.Join(outside, name)); string(b) != want {
			t.Errorf("outside %s = %q", name, b)
		}
	}
	t.Logf("%d rounds: %d calls landed inside, %d swaps", rounds, landed, swaps.Load())
	if swaps.Load() < int64(rounds) {
		t.Errorf("only %d swaps in %d rounds: the race was not exercised", swaps.Load(), rounds)
	}
}
