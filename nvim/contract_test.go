package nvim

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/luacats"
)

// TestLuaContract: the tables nvim exchanges with the Lua bridge match
// their LuaCATS classes (lua/nvbridge/_meta.lua).
func TestLuaContract(t *testing.T) {
	classes, err := luacats.Classes()
	if err != nil {
		t.Fatal(err)
	}
	luacats.Check(t, classes, openReply{}, "nvbridge.OpenReply", "msgpack")
	luacats.Check(t, classes, FileSnapshot{}, "nvbridge.FileSnapshot", "msgpack")
	luacats.Check(t, classes, SnapshotOptions{}, "nvbridge.SnapshotOptions", "msgpack")
	luacats.Check(t, classes, LineDelta{}, "nvbridge.LineDelta", "msgpack")
	luacats.Check(t, classes, LuaError{}, "nvbridge.Error", "msgpack")
}
