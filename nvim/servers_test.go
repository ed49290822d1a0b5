package nvim_test

import (
	"strings"
	"testing"

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
