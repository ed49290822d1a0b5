package nvim

import (
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// Progress of async bridge operations: an operation whose context carries
// a reporter (internal/progress) is registered under its id, and the Lua
// side's nvbridge_progress(id, {server, title, message, percentage})
// notifications (wait.lua: wait_clients relays the servers' $/progress
// while a request waits for them to finish indexing) become reports.

func (s *Session) watchProgress(id int64, f progress.Func) {
	if f == nil {
		return
	}
	s.mu.Lock()
	if s.reporters == nil {
		s.reporters = map[int64]progress.Func{}
	}
	s.reporters[id] = f
	s.mu.Unlock()
}

func (s *Session) unwatchProgress(id int64) {
	s.mu.Lock()
	delete(s.reporters, id)
	s.mu.Unlock()
}

// onProgress receives nvbridge_progress(id, report); interface{}
// parameters for the same reason as onDone's.
func (s *Session) onProgress(args ...any) {
	defer safego.Recover("nvbridge_progress", nil)
	if len(args) < 2 {
		return
	}
	id, ok := toInt64(args[0])
	if !ok {
		return
	}
	s.mu.Lock()
	f := s.reporters[id]
	s.mu.Unlock()
	if f == nil {
		return
	}
	r, _ := args[1].(map[string]any)
	done, total, msg := serverProgress(r)
	f(done, total, msg)
}

// serverProgress renders a server's $/progress value as a report:
// "waiting for gopls: Loading packages... 3/10 (30%)".
func serverProgress(r map[string]any) (done, total float64, message string) {
	str := func(k string) string { v, _ := r[k].(string); return v }
	var parts []string
	for _, p := range []string{str("title"), str("message")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	message = "waiting for " + str("server")
	if len(parts) > 0 {
		message += ": " + strings.Join(parts, " ")
	}
	pct, ok := r["percentage"].(float64)
	if n, isInt := toInt64(r["percentage"]); isInt {
		pct, ok = float64(n), true
	}
	if ok {
		message += fmt.Sprintf(" (%.0f%%)", pct)
		return pct, 100, message
	}
	return 0, 0, message
}
