package syntax

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/luacats"
)

// TestLuaContract: the tables syntax exchanges with lua/nvbridge/syntax.lua
// match their LuaCATS classes (lua/nvbridge/_meta.lua).
func TestLuaContract(t *testing.T) {
	classes, err := luacats.Classes()
	if err != nil {
		t.Fatal(err)
	}
	luacats.Check(t, classes, Source{}, "nvbridge.SyntaxSource", "msgpack")
	luacats.Check(t, classes, queryOpts{}, "nvbridge.SyntaxQueryOpts", "msgpack")
	luacats.Check(t, classes, Node{}, "nvbridge.SyntaxNode", "msgpack")
	luacats.Check(t, classes, Match{}, "nvbridge.SyntaxMatch", "msgpack")
	luacats.Check(t, classes, queryReply{}, "nvbridge.SyntaxMatches", "msgpack")
	luacats.Check(t, classes, enclosingReply{}, "nvbridge.SyntaxEnclosing", "msgpack")
	luacats.Check(t, classes, errorsReply{}, "nvbridge.SyntaxErrors", "msgpack")
}
