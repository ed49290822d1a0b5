package nvim_test

import (
	"fmt"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// luaSignatures loads each entry's module in Neovim and reads its
// function's parameters (LuaJIT's debug.getinfo: nparams, isvararg).
const luaSignatures = `
local out = {}
for i, e in ipairs(...) do
  local ok, m = pcall(require, e.module)
  local r = {}
  if not ok then
    r.err = 'cannot load ' .. e.module .. ': ' .. tostring(m)
  elseif type(m) ~= 'table' or type(m[e.name]) ~= 'function' then
    r.err = e.module .. ' has no function ' .. e.name
  else
    local info = debug.getinfo(m[e.name], 'u')
    r.nparams, r.vararg = info.nparams, info.isvararg
  end
  out[i] = r
end
return out
`

type luaSignature struct {
	Err     string `msgpack:"err"`
	NParams int    `msgpack:"nparams"`
	Vararg  bool   `msgpack:"vararg"`
}

// mismatches checks entries against the embedded Lua: each function exists
// and takes exactly the arguments Go passes (a vararg function at least its
// fixed ones).
func mismatches(t *testing.T, s *nvim.Session, entries []nvim.EntryPoint) []string {
	t.Helper()
	arg := make([]map[string]any, len(entries))
	for i, e := range entries {
		arg[i] = map[string]any{"module": e.Module, "name": e.Name}
	}
	var sigs []luaSignature
	if err := s.ExecLua(testenv.Context(t), luaSignatures, &sigs, arg); err != nil {
		t.Fatal(err)
	}
	if len(sigs) != len(entries) {
		t.Fatalf("%d signatures for %d entry points", len(sigs), len(entries))
	}
	var bad []string
	for i, e := range entries {
		sig := sigs[i]
		switch {
		case sig.Err != "":
			bad = append(bad, sig.Err)
		case sig.Vararg && sig.NParams > e.Params, !sig.Vararg && sig.NParams != e.Params:
			bad = append(bad, fmt.Sprintf("%s.%s takes %d parameters (vararg %v); Go passes %d", e.Module, e.Name, sig.NParams, sig.Vararg, e.Params))
		}
	}
	return bad
}

// TestLuaEntryPoints: every Lua function Go calls (nvim/entrypoints.go)
// exists in the embedded Lua and takes the arguments Go passes.
func TestLuaEntryPoints(t *testing.T) {
	s, _ := testenv.Embedded(t, t.TempDir())
	entries := nvim.EntryPoints()
	if len(entries) < 40 {
		t.Fatalf("only %d entry points declared", len(entries))
	}
	for _, m := range mismatches(t, s, entries) {
		t.Error(m)
	}
	// The check itself: a wrong arity, a missing function and a missing
	// module are each caught.
	wrong := []nvim.EntryPoint{
		{Module: entries[0].Module, Name: entries[0].Name, Params: entries[0].Params + 1},
		{Module: entries[0].Module, Name: "no_such_function"},
		{Module: "nvbridge.no_such_module", Name: "f"},
	}
	if got := mismatches(t, s, wrong); len(got) != len(wrong) {
		t.Fatalf("the check found %q in %v", got, wrong)
	}
}
