package edit_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
)

// TestCommitFingerprintIsLuas: the fingerprint the commit computes for the
// bytes it writes is buffers.lua's for the same bytes (lengths around the
// 8-byte words, NUL, multibyte, random bytes), and after a saved apply the
// buffer's recorded disk fingerprint is that of the file's bytes as Lua
// reads them back.
func TestCommitFingerprintIsLuas(t *testing.T) {
	v := newEnv(t, map[string]string{"f.txt": "one\ntwo\nthree\n"})
	rng := rand.New(rand.NewPCG(7, 8))
	random := make([]byte, 1003)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	samples := []string{"", "a", "1234567", "12345678", "123456789", "a\x00b\x00\x00", "héllo wörld 👍\n", strings.Repeat("x", 64), string(random)}
	for _, s := range samples {
		var lua string
		v.lua(`return require('nvbridge.buffers').fingerprint((...))`, &lua, s)
		if kind := ""; true {
			v.lua(`return require('nvbridge.buffers').fingerprint_kind`, &kind)
			if kind != "fnv64" {
				t.Fatalf("Neovim's Lua fingerprint is %q, not fnv64 (no LuaJIT?)", kind)
			}
		}
		if got := edit.Fingerprint([]byte(s)); got != lua {
			t.Errorf("%d bytes: Go %s, Lua %s", len(s), got, lua)
		}
	}
	if _, err := v.e.EditLines(v.ctx, "f.txt", []edit.LineEdit{{LineStart: 2, LineEnd: 2, NewText: "deux 👍"}}, edit.Options{Save: true}); err != nil {
		t.Fatal(err)
	}
	var same bool
	v.lua(`local b = vim.fn.bufnr((...))
local buffers = require('nvbridge.buffers')
return vim.b[b].nvbridge_disk_hash == buffers.fingerprint(buffers.read_file((...)))`, &same, v.abs("f.txt"))
	if !same {
		t.Fatal("the buffer's recorded disk fingerprint is not the written file's")
	}
	if got := v.disk("f.txt"); got != "one\ndeux 👍\nthree\n" {
		t.Fatalf("disk: %q", got)
	}
}
