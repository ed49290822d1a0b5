package edit

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/luacats"
)

// TestLuaContract: the plan apply.lua receives and the replies it sends
// match their LuaCATS classes (lua/nvbridge/_meta.lua).
func TestLuaContract(t *testing.T) {
	classes, err := luacats.Classes()
	if err != nil {
		t.Fatal(err)
	}
	luacats.Check(t, classes, luaPlan{}, "nvbridge.Plan", "msgpack")
	luacats.Check(t, classes, luaGuard{}, "nvbridge.Guard", "msgpack")
	luacats.Check(t, classes, luaApplyReply{}, "nvbridge.ApplyReply", "msgpack")
	luacats.Check(t, classes, luaBufferReply{}, "nvbridge.BufferReply", "msgpack")
	luacats.Check(t, classes, luaDiskOp{}, "nvbridge.DiskOp", "msgpack")
	luacats.Check(t, classes, luaDiskState{}, "nvbridge.DiskState", "msgpack")
	luacats.Check(t, classes, luaCommitReply{}, "nvbridge.CommitReply", "msgpack")
}
