package nvim_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// A second nvbridge attaching to the same Neovim must not replace the Lua
// modules (and the state: what observe recorded, what async has in flight)
// of the first.
func TestSecondBridgeKeepsModules(t *testing.T) {
	root := t.TempDir()
	addr := testenv.Listening(t, root)
	first, _ := testenv.Attached(t, addr, root)
	ctx := testenv.Context(t)
	const identity = "return tostring(require('nvbridge.bridge')) .. tostring(require('nvbridge.observe')) .. tostring(require('nvbridge.async'))"
	var before, after string
	if err := first.ExecLua(ctx, identity, &before); err != nil {
		t.Fatal(err)
	}
	testenv.Attached(t, addr, root)
	if err := first.ExecLua(ctx, identity, &after); err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Fatalf("the second bridge replaced nvbridge.bridge, observe or async: %s became %s", before, after)
	}
	// The user plugin's module is never registered by the binary.
	var userSide bool
	if err := first.ExecLua(ctx, "return package.preload['nvbridge'] ~= nil", &userSide); err != nil {
		t.Fatal(err)
	}
	if userSide {
		t.Fatal("the binary registered the user-side module nvbridge")
	}
}
