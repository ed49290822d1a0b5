package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
)

// Logging (the logging capability): nvbridge's own warnings reach every
// MCP session as notifications/message at or above the level it set with
// logging/setLevel (mcp-go keeps the level per session; "error" until
// set). The loggers:
//
//	nvbridge.server  a language server crashed (and whether it restarts)
//	nvbridge.wait    a wait on the servers was cut short (an answer with complete: false)
//	nvbridge.policy  a call refused because it named a sensitive file
//
// Each message's data is an object: {message, ...details}. They go to the
// log (--log) too.

// warningData is a message's data: the message and its details.
func warningData(message string, details map[string]any) map[string]any {
	data := map[string]any{"message": message}
	for k, v := range details {
		data[k] = v
	}
	return data
}

// logWarningTo sends a warning about a call to the session that made it:
// at the level the session set (logging/setLevel), or, from protocol
// 2026-07-28 on, the level the request asked for in its _meta.
func (w *watcher) logWarningTo(ctx context.Context, logger, message string, details map[string]any) {
	w.env.Logf("%s: %s", logger, message)
	if w.srv == nil {
		return
	}
	// Best effort: a session that does not log misses it (the log has it).
	_ = w.srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, logger, warningData(message, details)))
}

// logWarning sends a warning that no call caused (a server crashed) to
// every session that set a level (each filters by it). A 2026-07-28
// client sets levels per request and is sent none: MCP forbids log
// messages a request did not ask for.
func (w *watcher) logWarning(logger, message string, details map[string]any) {
	w.env.Logf("%s: %s", logger, message)
	if w.srv == nil {
		return
	}
	data := warningData(message, details)
	w.mu.Lock()
	ids := make([]string, 0, len(w.sessions))
	for id := range w.sessions {
		ids = append(ids, id)
	}
	w.mu.Unlock()
	n := mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, logger, data)
	for _, id := range ids {
		// Best effort: a session that does not log, or whose queue is
		// full, misses it (the log file has it).
		_ = w.srv.SendLogMessageToSpecificClient(id, n)
	}
}

// serverExit is extensions.lua's report of a server that exited abnormally.
type serverExit struct {
	Name           string `json:"name"`
	How            string `json:"how"`
	Managed        bool   `json:"managed"`
	RestartAttempt int    `json:"restart_attempt"`
	RestartMax     int    `json:"restart_max"`
	RestartDelayMs int    `json:"restart_delay_ms"`
	GaveUp         bool   `json:"gave_up"`
}

func (w *watcher) serverDown(raw json.RawMessage) {
	var e serverExit
	if err := json.Unmarshal(raw, &e); err != nil || e.Name == "" {
		return
	}
	msg := fmt.Sprintf("language server %s %s", e.Name, e.How)
	switch {
	case e.GaveUp:
		msg += fmt.Sprintf("; nvbridge gave up restarting it after %d crashes in a row", e.RestartMax)
	case e.RestartAttempt > 0:
		msg += fmt.Sprintf("; restarting it in %d ms (attempt %d of %d)", e.RestartDelayMs, e.RestartAttempt, e.RestartMax)
	case !e.Managed:
		msg += "; it is the user's: :LspRestart in Neovim brings it back"
	}
	w.logWarning("nvbridge.server", msg, map[string]any{"server": e.Name, "exit": e.How, "restart_attempt": e.RestartAttempt, "gave_up": e.GaveUp})
}

// toolMiddleware logs what a call's answer says went short (a wait cut,
// a policy refusal) and has the resource list compared after every call
// that may change it (changesets and debug sessions come and go with
// calls), once the call's answer is written (RunAfterAnswer: the list
// loop's goroutine woken meanwhile took the cores from the answer's
// encoding). A read-only tool's call changes none: what it loads or what the
// servers publish meanwhile is an event of its own (onEvent), and the
// comparison (two calls to Neovim) would run beside the answer being
// sent, on the same cores.
func (w *watcher) toolMiddleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if !w.readOnlyTool(req.Params.Name) {
			RunAfterAnswer(ctx, w.requestRelist)
		}
		if res != nil {
			w.inspect(ctx, req.Params.Name, res)
		}
		return res, err
	}
}

// readOnlyTool reports whether the served tool name says it changes
// nothing (its read-only hint); an unknown name is not.
func (w *watcher) readOnlyTool(name string) bool {
	if w.srv == nil {
		return false
	}
	if ro, fixed := readOnlyFixed(w.srv, name); fixed {
		return ro
	}
	t := w.srv.GetTool(name)
	return t != nil && t.Tool.Annotations.ReadOnlyHint != nil && *t.Tool.Annotations.ReadOnlyHint
}

// inspect finds the warnings in a result.
func (w *watcher) inspect(ctx context.Context, tool string, res *mcp.CallToolResult) {
	if res.IsError {
		if body, ok := res.StructuredContent.(ErrorBody); ok && body.Error != nil && isPolicyRefusal(body.Error) {
			w.logWarningTo(ctx, "nvbridge.policy", fmt.Sprintf("%s refused: %s", tool, body.Error.Message), map[string]any{"tool": tool, "code": string(body.Error.Code)})
		}
		return
	}
	top, ok := waitFieldsOf(res.StructuredContent)
	if !ok {
		return
	}
	why := ""
	switch {
	case top.DiagnosticsComplete != nil && !*top.DiagnosticsComplete:
		// A file no server handles was not waited for: nothing was cut.
		if strings.HasPrefix(top.DiagnosticsWhy, "no language server is attached") {
			return
		}
		why = top.DiagnosticsWhy
	case top.Complete != nil && !*top.Complete, top.Incomplete != "":
		why = top.Incomplete
	default:
		return
	}
	if why == "" {
		why = "the bound was hit before the servers answered"
	}
	w.logWarningTo(ctx, "nvbridge.wait", fmt.Sprintf("%s: a wait was cut short: %s", tool, why), map[string]any{"tool": tool})
}

// isPolicyRefusal: the workspace policy refused a sensitive file
// (workspace.Root.Resolve's message).
func isPolicyRefusal(e *apierr.Error) bool {
	return e.Code == apierr.PreconditionFailed && strings.Contains(e.Message, "is a sensitive file")
}

// waitTop is what a result says at its top level about a wait cut short.
type waitTop struct {
	DiagnosticsComplete *bool  `json:"diagnostics_complete"`
	DiagnosticsWhy      string `json:"diagnostics_incomplete"`
	Complete            *bool  `json:"complete"`
	Incomplete          string `json:"incomplete"`
}

// waitFieldIndex: per result type, where its top-level fields of those
// names are (reflect.VisibleFields: embedded structs flattened as
// encoding/json flattens them), found once.
var waitFieldIndex sync.Map // reflect.Type -> map[string][]int

// waitFieldsOf reads a result's waitTop fields without encoding it (a
// preview's answer carries up to 16 KiB of diff; this runs after every
// call): from a struct by its fields' json names, from a map (a user tool's
// answer, decoded) by its keys, from anything else through JSON.
func waitFieldsOf(v any) (waitTop, bool) {
	var top waitTop
	if v == nil {
		return top, false
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return top, false
		}
		rv = rv.Elem()
	}
	if _, custom := v.(json.Marshaler); custom {
		// Its own encoding decides its fields.
		rv = reflect.Value{}
	}
	switch rv.Kind() {
	case reflect.Struct:
	case reflect.Map:
		m, ok := rv.Interface().(map[string]any)
		if !ok {
			break
		}
		boolOf := func(k string) *bool {
			if b, ok := m[k].(bool); ok {
				return &b
			}
			return nil
		}
		top.DiagnosticsComplete, top.Complete = boolOf("diagnostics_complete"), boolOf("complete")
		top.DiagnosticsWhy, _ = m["diagnostics_incomplete"].(string)
		top.Incomplete, _ = m["incomplete"].(string)
		return top, true
	case reflect.Invalid:
	default:
		return top, false
	}
	if rv.Kind() != reflect.Struct {
		b, err := json.Marshal(v)
		return top, err == nil && json.Unmarshal(b, &top) == nil
	}
	t := rv.Type()
	idx, ok := waitFieldIndex.Load(t)
	if !ok {
		found := map[string][]int{}
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch name {
			case "diagnostics_complete", "diagnostics_incomplete", "complete", "incomplete":
				// The shallowest wins, as in encoding/json.
				if prev, seen := found[name]; f.IsExported() && (!seen || len(f.Index) < len(prev)) {
					found[name] = f.Index
				}
			}
		}
		idx, _ = waitFieldIndex.LoadOrStore(t, found)
	}
	for name, index := range idx.(map[string][]int) {
		f, err := rv.FieldByIndexErr(index)
		if err != nil {
			continue
		}
		switch x := f.Interface().(type) {
		case bool:
			b := x
			if name == "complete" {
				top.Complete = &b
			} else if name == "diagnostics_complete" {
				top.DiagnosticsComplete = &b
			}
		case *bool:
			if name == "complete" {
				top.Complete = x
			} else if name == "diagnostics_complete" {
				top.DiagnosticsComplete = x
			}
		case string:
			if name == "incomplete" {
				top.Incomplete = x
			} else if name == "diagnostics_incomplete" {
				top.DiagnosticsWhy = x
			}
		}
	}
	return top, true
}
