package lsp

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/luacats"
)

// TestLuaContract: the tables lsp exchanges with the Lua bridge (msgpack,
// and the JSON-encoded nvbridge tables) match their LuaCATS classes
// (lua/nvbridge/_meta.lua).
func TestLuaContract(t *testing.T) {
	classes, err := luacats.Classes()
	if err != nil {
		t.Fatal(err)
	}
	luacats.Check(t, classes, captureBegin{}, "nvbridge.CaptureBegin", "msgpack")
	luacats.Check(t, classes, serverWire{}, "nvbridge.Client", "json")
	luacats.Check(t, classes, openWaitReply{}, "nvbridge.OpenWait", "json")
	luacats.Check(t, classes, symbolClient{}, "nvbridge.WorkspaceClient", "json")
	luacats.Check(t, classes, tsImport{}, "nvbridge.TSImport", "json")
}
