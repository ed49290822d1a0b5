package nvim_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
)

func TestExtraServersFromEnv(t *testing.T) {
	for _, c := range []struct {
		env, wantErr string
		want         int
	}{
		{"", "", 0},
		{`[{"name":"fake","cmd":["fake","--stdio"],"filetypes":["text"],"markers":["x.toml"],"env":{"A":"1"}}]`, "", 1},
		{`{"name":"fake"}`, "JSON list", 0},
		{`[{"name":"fake","cmd":[],"filetypes":["text"]}]`, "needs name, cmd and filetypes", 0},
		{`[{"cmd":["x"],"filetypes":["text"]}]`, "needs name, cmd and filetypes", 0},
	} {
		t.Setenv(nvim.ExtraServersEnv, c.env)
		specs, err := nvim.ExtraServersFromEnv()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err %v, want %q", c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil || len(specs) != c.want {
			t.Errorf("%s: %v, %v", c.env, specs, err)
		}
	}
}

// TestServerBehaviourIsData: what differs per server reaches the Lua side
// as the registry's data (lang.ServerSpec), under the server's name and the
// names a user's configuration gives its clients; nothing else is treated
// so.
func TestServerBehaviourIsData(t *testing.T) {
	s, _ := testenv.Embedded(t, t.TempDir())
	type want struct {
		Name      string   `msgpack:"name"`
		Staged    bool     `msgpack:"staged"`
		Sync      int      `msgpack:"sync"`
		Settings  any      `msgpack:"settings"`
		Title     string   `msgpack:"title"`
		Hint      string   `msgpack:"hint"`
		Untitled  bool     `msgpack:"untitled"`
		Publishes bool     `msgpack:"publishes"`
		Pulls     bool     `msgpack:"pulls"`
		Names     []string `msgpack:"-"`
	}
	var cases []want
	for _, spec := range lang.ServerSpecs() {
		w := want{Name: spec.Name, Staged: spec.StagedPublishes, Sync: len(spec.DiagnosticsSync), Hint: spec.RenameHints}
		if p := spec.DiagnosisProgress; p != nil && len(p.Setting) > 0 {
			w.Title = p.Title
			// The setting's path, true, as a client's settings hold it.
			var v any = true
			for i := len(p.Setting) - 1; i >= 0; i-- {
				v = map[string]any{p.Setting[i]: v}
			}
			w.Settings = v
		}
		if p := spec.DiagnosisProgress; p != nil {
			w.Untitled, w.Publishes, w.Pulls = p.Untitled, p.Publishes, p.Pulls
		}
		for _, name := range append([]string{spec.Name}, spec.ClientNames...) {
			c := w
			c.Name = name
			cases = append(cases, c)
		}
	}
	cases = append(cases, want{Name: "a-server-nvbridge-does-not-know"})
	const code = `
local servers = require('nvbridge.servers')
local function holds(v, s)
  if v == s then
    return true
  end
  if type(v) == 'table' then
    for _, x in pairs(v) do
      if holds(x, s) then
        return true
      end
    end
  end
  return false
end
local out = {}
for i, c in ipairs(...) do
  local client = { name = c.name }
  local sync = servers.diagnostics_sync(client, 'file:///x.ts')
  out[i] = {
    staged = servers.staged(client),
    sync = sync and #sync or 0,
    sync_uri = sync ~= nil and holds(sync, 'file:///x.ts') and not holds(sync, '${uri}'),
    reports = c.settings ~= vim.NIL and servers.reports_diagnosis(c.settings) or false,
    title = c.title ~= '' and servers.diagnosis_title(c.title .. ' a file') or false,
    hinted = c.hint ~= '' and vim.tbl_contains(servers.rename_hints(), c.hint) or false,
    untitled = servers.diagnosis_title('', client),
    publishes = servers.diagnosis_publishes(client),
    pulls = servers.diagnosis_pulls(client),
  }
end
return out`
	var got []struct {
		Staged    bool `msgpack:"staged"`
		Sync      int  `msgpack:"sync"`
		SyncURI   bool `msgpack:"sync_uri"`
		Reports   bool `msgpack:"reports"`
		Title     bool `msgpack:"title"`
		Hinted    bool `msgpack:"hinted"`
		Untitled  bool `msgpack:"untitled"`
		Publishes bool `msgpack:"publishes"`
		Pulls     bool `msgpack:"pulls"`
	}
	if err := s.ExecLua(testenv.Context(t), code, &got, cases); err != nil {
		t.Fatal(err)
	}
	staged, reported := 0, 0
	for i, c := range cases {
		g := got[i]
		if g.Staged != c.Staged || g.Sync != c.Sync || g.SyncURI != (c.Sync > 0) || g.Reports != (c.Settings != nil) ||
			g.Title != (c.Title != "") || g.Hinted != (c.Hint != "") || g.Untitled != c.Untitled || g.Publishes != c.Publishes || g.Pulls != c.Pulls {
			t.Errorf("%s: Lua sees %+v; the spec says %+v", c.Name, g, c)
		}
		if g.Staged {
			staged++
		}
		if g.Reports {
			reported++
		}
	}
	if staged == 0 || reported == 0 {
		t.Errorf("no staged publisher (%d) or diagnosis reporter (%d) in the registry: the test checks nothing", staged, reported)
	}
	// Settings that do not turn the setting on report nothing.
	var off bool
	if err := s.ExecLua(testenv.Context(t), `return require('nvbridge.servers').reports_diagnosis({ other = { x = true } })`, &off); err != nil || off {
		t.Errorf("unrelated settings report diagnosis: %v, %v", off, err)
	}
}
