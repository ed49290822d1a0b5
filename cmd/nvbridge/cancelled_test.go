package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// renameHangServers is a fake server (fault injection: a rename that never
// answers) for text files: rename hangs, documentSymbol is held until the
// rename request has arrived, hover until a $/cancelRequest has, then
// answers with the fake's log.
func renameHangServers(t *testing.T) []byte {
	t.Helper()
	spec, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentRename:         fakelsp.Hang,
		protocol.MethodTextDocumentDocumentSymbol: fakelsp.AwaitPrefix + protocol.MethodTextDocumentRename,
		protocol.MethodTextDocumentHover:          fakelsp.AwaitPrefix + protocol.MethodCancelRequest + ":" + fakelsp.Log,
	}})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := json.Marshal([]nvim.ServerSpec{spec})
	if err != nil {
		t.Fatal(err)
	}
	return servers
}

const notesText = "hello world\nsecond line\n"

// checkRenameCancelled checks the fake's log: exactly one rename request,
// and $/cancelRequest for exactly it.
func checkRenameCancelled(t *testing.T, log string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^textDocument/rename id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(m) != 1 {
		t.Fatalf("the fake received %d rename requests, want 1; its log:\n%s", len(m), log)
	}
	cancels := regexp.MustCompile(`(?m)^\$/cancelRequest id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(cancels) != 1 || cancels[0][1] != m[0][1] {
		t.Fatalf("the fake received $/cancelRequest for %v, want exactly the rename request %s; its log:\n%s", cancels, m[0][1], log)
	}
}

// TestCancelledCallIsNotAnswered (stdio): a rename_symbol applying at once
// (preview=false) hangs at the language server; the client cancels it. The
// language server receives $/cancelRequest for that rename, the buffer is
// unchanged (nothing applied, nothing modified), and the cancelled request
// gets no answer at all, as MCP specifies (checked once nvbridge has
// exited: mcp-go's stdio waits for every handler and its write before
// returning).
func TestCancelledCallIsNotAnswered(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte(notesText), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := (2 * testenv.Timeout()).String()
	p := start(t, []string{nvim.ExtraServersEnv + "=" + string(renameHangServers(t))}, "--root", root, "--timeout", timeout, "mcp")
	p.initialize()
	id := 1
	call := func(name string, args map[string]any, what string) map[string]any {
		t.Helper()
		id++
		p.send(map[string]any{"id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		msg := awaitAnswer(t, p, id, what)
		res, _ := msg["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("%s: %v", name, msg)
		}
		return res
	}
	id++
	hung := id
	p.send(map[string]any{"id": hung, "method": "tools/call", "params": map[string]any{
		"name": "rename_symbol", "arguments": map[string]any{"file": "notes.txt", "line": 1, "symbol": "hello", "new_name": "goodbye", "preview": false},
	}})
	call("get_symbols", map[string]any{"file": "notes.txt"}, "the rename request to reach the fake (it holds documentSymbol until then)")
	p.send(map[string]any{"method": "notifications/cancelled", "params": map[string]any{"requestId": hung, "reason": "changed my mind"}})
	res := call("get_hover_info", map[string]any{"file": "notes.txt", "line": 2, "symbol": "second"}, "$/cancelRequest to reach the fake")
	structured, _ := json.Marshal(res["structuredContent"])
	var hover struct {
		Contents string `json:"contents"`
	}
	if err := json.Unmarshal(structured, &hover); err != nil {
		t.Fatal(err)
	}
	checkRenameCancelled(t, hover.Contents)

	info := call("get_buffer_info", map[string]any{"file": "notes.txt"}, "get_buffer_info after the cancellation")
	b, _ := json.Marshal(info["structuredContent"])
	var buf struct {
		Content    string `json:"content"`
		IsModified bool   `json:"is_modified"`
	}
	if err := json.Unmarshal(b, &buf); err != nil {
		t.Fatal(err)
	}
	if buf.Content != notesText || buf.IsModified {
		t.Errorf("the buffer after a cancelled rename: %+v, want unchanged %q", buf, notesText)
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d after stdin closed, want 0", code)
	}
	if msg := answered(p, hung); msg != nil {
		t.Errorf("the cancelled request was answered: %v", msg)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(disk) != notesText {
		t.Errorf("the file changed on disk: %q", disk)
	}
	p.checkStdout()
}

// TestCancelledCallIsNotAnsweredHTTP: the same over streamable HTTP. The
// hung call's POST stays open while another POST cancels it; the hung POST
// then ends without the answer (202 with no body, or an event stream
// without it).
func TestCancelledCallIsNotAnsweredHTTP(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte(notesText), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := (2 * testenv.Timeout()).String()
	p := start(t, []string{nvim.ExtraServersEnv + "=" + string(renameHangServers(t))},
		"--root", root, "--timeout", timeout, "mcp", "--http", "127.0.0.1:0", "--no-auth")
	stderr := p.waitStderr("serving MCP on ")
	url := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`).FindStringSubmatch(stderr)[1]
	ctx, cancel := context.WithTimeout(context.Background(), 3*testenv.Timeout())
	defer cancel()

	session := ""
	post := func(msg map[string]any) *http.Response {
		t.Helper()
		msg["jsonrpc"] = "2.0"
		body, _ := json.Marshal(msg)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// messages reads a response's JSON-RPC messages (JSON or SSE).
	messages := func(resp *http.Response) []map[string]any {
		t.Helper()
		defer resp.Body.Close()
		var out []map[string]any
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					var m map[string]any
					if json.Unmarshal([]byte(data), &m) == nil {
						out = append(out, m)
					}
				}
			}
			return out
		}
		body, _ := io.ReadAll(resp.Body)
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			out = append(out, m)
		}
		return out
	}
	result := func(id int, resp *http.Response) map[string]any {
		t.Helper()
		for _, m := range messages(resp) {
			if got, _ := m["id"].(float64); int(got) == id {
				res, _ := m["result"].(map[string]any)
				if res == nil || res["isError"] == true {
					t.Fatalf("request %d: %v", id, m)
				}
				return res
			}
		}
		t.Fatalf("no answer to request %d", id)
		return nil
	}
	init := post(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "nvbridge-test", "version": "0"},
	}})
	session = init.Header.Get("Mcp-Session-Id")
	result(1, init)
	post(map[string]any{"method": "notifications/initialized"}).Body.Close()

	hung := make(chan *http.Response, 1)
	go func() {
		hung <- post(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{"name": "rename_symbol",
			"arguments": map[string]any{"file": "notes.txt", "line": 1, "symbol": "hello", "new_name": "goodbye", "preview": false}}})
	}()
	call := func(id int, name string, args map[string]any) map[string]any {
		t.Helper()
		return result(id, post(map[string]any{"id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}}))
	}
	call(3, "get_symbols", map[string]any{"file": "notes.txt"}) // waits until the rename reached the fake
	post(map[string]any{"method": "notifications/cancelled", "params": map[string]any{"requestId": 2, "reason": "changed my mind"}}).Body.Close()
	res := call(4, "get_hover_info", map[string]any{"file": "notes.txt", "line": 2, "symbol": "second"})
	structured, _ := json.Marshal(res["structuredContent"])
	var hover struct {
		Contents string `json:"contents"`
	}
	_ = json.Unmarshal(structured, &hover)
	checkRenameCancelled(t, hover.Contents)

	var resp *http.Response
	select {
	case resp = <-hung:
	case <-ctx.Done():
		t.Fatal("the cancelled POST never ended")
	}
	status := resp.StatusCode
	for _, m := range messages(resp) {
		if got, _ := m["id"].(float64); int(got) == 2 {
			t.Errorf("the cancelled request was answered (HTTP %d): %v", status, m)
		}
	}
	if status != http.StatusAccepted && status != http.StatusOK {
		t.Errorf("the cancelled POST ended with HTTP %d", status)
	}
	info := call(5, "get_buffer_info", map[string]any{"file": "notes.txt"})
	b, _ := json.Marshal(info["structuredContent"])
	if !strings.Contains(string(b), `"content":"hello world\nsecond line\n"`) || strings.Contains(string(b), `"is_modified":true`) {
		t.Errorf("the buffer after a cancelled rename: %s", b)
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	p.wait()
}

// TestAnswerFilter: the filter's bookkeeping on its own: ids normalised,
// only requests in flight can be cancelled, an answer ends the flight,
// notifications and requests to the client pass.
func TestAnswerFilter(t *testing.T) {
	f := newAnswerFilter()
	if !f.incoming("s", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`)) {
		t.Fatal("a request was not seen as one")
	}
	f.incoming("s", []byte(`[{"jsonrpc":"2.0","id":"7","method":"tools/call"},{"jsonrpc":"2.0","id":8,"method":"ping"}]`))
	f.incoming("s", []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0}}`))
	f.incoming("other", []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`))
	f.incoming("s", []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`))
	cases := []struct {
		session, msg string
		drop         bool
	}{
		{"s", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false},
		{"s", `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n", true},
		{"s", `{"jsonrpc":"2.0","id":7,"result":{}}`, false}, // the flight ended
		{"s", `{"jsonrpc":"2.0","id":"7","result":{}}`, false},
		{"s", `{"jsonrpc":"2.0","id":8,"result":{}}`, false}, // cancelled in another session
		{"s", `{"jsonrpc":"2.0","id":99,"result":{}}`, false},
	}
	for _, c := range cases {
		if got := f.drop(c.session, []byte(c.msg)); got != c.drop {
			t.Errorf("drop(%s, %s) = %v, want %v", c.session, c.msg, got, c.drop)
		}
	}
	if len(f.inflight) != 0 {
		t.Errorf("requests left in flight: %v", f.inflight)
	}
}

// TestAnswerID: the id of an answer is read from its first keys, whatever
// the order; anything that is not an answer has none.
func TestAnswerID(t *testing.T) {
	cases := map[string]string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}`:  `7`,
		`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`:           `"a"`,
		`{"result":[1,2,3],"id":3.0,"jsonrpc":"2.0"}`:                                 `3.0`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`:       `null`,
		`{"jsonrpc":"2.0","id":4,"params":{"x":1},"method":"sampling/createMessage"}`: ``,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`:             ``,
		`{"jsonrpc":"2.0","id":5}`:               ``,
		`[{"jsonrpc":"2.0","id":6,"result":{}}]`: ``,
		`{"jsonrpc":"2.0","id":6,"result":`:      `6`,
		`not json`:                               ``,
	}
	for msg, want := range cases {
		if got := string(answerID([]byte(msg))); got != want {
			t.Errorf("answerID(%s) = %q, want %q", msg, got, want)
		}
	}
}

// TestScanMessage: a message's method and id are read in any key order;
// the params of a request after its method and id are not read, a
// cancellation's are.
func TestScanMessage(t *testing.T) {
	cases := []struct {
		body, method, id, requestID string
	}{
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{"edits":[1,2,3]}}}`, "tools/call", "5", ""},
		{`{"params":{"x":1},"method":"tools/call","id":"a"}`, "tools/call", `"a"`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "notifications/cancelled", "", "7"},
		{`{"id":3,"method":"notifications/cancelled","params":{"requestId":"x"}}`, "notifications/cancelled", "3", `"x"`},
		{`{"jsonrpc":"2.0","id":9,"result":{}}`, "", "9", ""},
	}
	for _, c := range cases {
		m, ok := scanMessage([]byte(c.body))
		if !ok || m.Method != c.method || string(m.ID) != c.id || string(m.Params.RequestID) != c.requestID {
			t.Errorf("scanMessage(%s) = %+v %v", c.body, m, ok)
		}
	}
	if _, ok := scanMessage([]byte(`[1]`)); ok {
		t.Error("an array read as a message")
	}
}
