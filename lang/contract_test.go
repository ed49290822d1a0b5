package lang

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/luacats"
)

// TestLuaContract: the server specs servers.lua receives match their
// LuaCATS class (lua/nvbridge/_meta.lua).
func TestLuaContract(t *testing.T) {
	classes, err := luacats.Classes()
	if err != nil {
		t.Fatal(err)
	}
	luacats.Check(t, classes, ServerSpec{}, "nvbridge.ServerSpec", "json")
}
