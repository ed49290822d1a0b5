package dap_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/workspace"
)

// wait bounds every wait for a stop in these tests (the suite's timeout:
// dlv builds the program first; a busy machine is slow).
func wait() time.Duration { return testenv.Timeout() }

// newManager copies testdata/samples/debug/LANG and returns a manager
// rooted there (no Neovim display), closed at cleanup.
func newManager(t *testing.T, lang string) (*dap.Manager, string) {
	t.Helper()
	testenv.Isolate(t)
	root := testenv.CopySample(t, filepath.Join("debug", lang))
	r, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	m := dap.NewManager(r, nil, t.Logf)
	t.Cleanup(m.Close)
	return m, r.Dir()
}

// lineOf returns the 1-based line of file holding "bp:MARKER".
func lineOf(t *testing.T, root, file, marker string) int { return lineOfTB(t, root, file, marker) }

func lineOfTB(t testing.TB, root, file, marker string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "bp:"+marker+" ") || strings.HasSuffix(sc.Text(), "bp:"+marker) {
			return n
		}
	}
	t.Fatalf("%s has no bp:%s marker", file, marker)
	return 0
}

// fatal fails the test on err.
func fatal(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sessionInfo returns the only session's info.
func sessionInfo(t *testing.T, m *dap.Manager) dap.Info {
	t.Helper()
	infos, err := m.Infos(testenv.Context(t), "")
	fatal(t, err)
	if len(infos) != 1 {
		t.Fatalf("%d sessions, want 1", len(infos))
	}
	return infos[0]
}

// wantStop checks a report: stopped at file:line for reason.
func wantStop(t *testing.T, r dap.Report, reason, file string, line int) {
	t.Helper()
	if !r.Complete || r.State != dap.StateStopped {
		t.Fatalf("not stopped: complete=%v state=%s note=%q", r.Complete, r.State, r.Note)
	}
	if reason != "" && r.Reason != reason {
		t.Errorf("reason %q, want %q", r.Reason, reason)
	}
	if r.Location == nil || r.Location.File != file || r.Location.Line != line {
		t.Fatalf("stopped at %+v, want %s:%d", r.Location, file, line)
	}
	current := false
	for _, l := range r.Location.Source {
		if l.Current && l.Line == line {
			current = true
		}
	}
	if !current {
		t.Errorf("source around the stop does not mark line %d: %+v", line, r.Location.Source)
	}
}

// outputText joins the output chunks of a category ("" = all).
func outputText(chunks []dap.OutputChunk, category string) string {
	var b strings.Builder
	for _, c := range chunks {
		if category == "" || c.Category == category {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// findVar finds a variable by a dotted path of names in a list.
func findVar(vars []dap.Variable, path ...string) (dap.Variable, bool) {
	for _, v := range vars {
		if v.Name == path[0] {
			if len(path) == 1 {
				return v, true
			}
			return findVar(v.Children, path[1:]...)
		}
	}
	return dap.Variable{}, false
}

// pidAlive reports whether pid runs (zombies count as gone).
func pidAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
