package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// These tests drive the HTTP layer (httpHandler) and the stdio line limit
// around a real mcp-go server with no tools: what they check happens before
// any tool runs.

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func testHTTPServer(t *testing.T, maxBytes int64) *httptest.Server {
	t.Helper()
	srv := server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(true))
	ts := httptest.NewServer(httpHandler(srv, httpOptions{token: "tok", maxRequestBytes: maxBytes}))
	t.Cleanup(ts.Close)
	return ts
}

// post sends body (chunked when chunked is set: no Content-Length) with the
// token and extra headers; it returns the status, the headers and the body.
func post(t *testing.T, url, body string, chunked bool, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // hides the length: sent chunked
	}
	req, err := http.NewRequestWithContext(testenv.Context(t), http.MethodPost, url+"/mcp", r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// Issue 8: a 100 MB argument took 2.4 GB. A body past the limit is refused
// with 413 and a JSON-RPC error naming the limit and the flag, whether or not
// it declares its length; the server goes on serving.
func TestHTTPRequestBodyLimit(t *testing.T) {
	ts := testHTTPServer(t, 1000)
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"text":"` + strings.Repeat("x", 5000) + `"}}}`
	for _, chunked := range []bool{false, true} {
		code, h, body := post(t, ts.URL, big, chunked, nil)
		if code != http.StatusRequestEntityTooLarge {
			t.Fatalf("chunked=%v: HTTP %d, want 413; body %s", chunked, code, body)
		}
		if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code    int            `json:"code"`
				Message string         `json:"message"`
				Data    map[string]any `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &msg); err != nil {
			t.Fatalf("body is not JSON: %v: %s", err, body)
		}
		if msg.JSONRPC != "2.0" || msg.Error.Code != -32600 || !strings.Contains(msg.Error.Message, "1000 bytes") ||
			!strings.Contains(msg.Error.Message, "--max-request-bytes") || msg.Error.Data["limit"] != float64(1000) {
			t.Errorf("chunked=%v: error %+v", chunked, msg)
		}
	}
	if code, _, body := post(t, ts.URL, initBody, true, nil); code != http.StatusOK {
		t.Fatalf("a small request after a refused one: HTTP %d %s", code, body)
	}
}

// DNS-rebinding protection (MCP spec, transports: "Servers MUST validate the
// Origin header"): a present Origin that is not loopback is refused with 403.
func TestHTTPOrigin(t *testing.T) {
	ts := testHTTPServer(t, 1<<20)
	for _, c := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://localhost:3000", http.StatusOK},
		{"http://127.0.0.1", http.StatusOK},
		{"http://[::1]:8080", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"http://192.168.1.10:8765", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		h := map[string]string{}
		if c.origin != "" {
			h["Origin"] = c.origin
		}
		if code, _, body := post(t, ts.URL, initBody, false, h); code != c.want {
			t.Errorf("Origin %q: HTTP %d, want %d (%s)", c.origin, code, c.want, body)
		}
	}
}

// Streamable HTTP: "The server MAY terminate the session at any time, after
// which it MUST respond to requests containing that session ID with HTTP 404
// Not Found"; an id the server never issued is not a session either.
func TestHTTPSessionIDs(t *testing.T) {
	ts := testHTTPServer(t, 1<<20)
	code, h, body := post(t, ts.URL, initBody, false, nil)
	id := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize: HTTP %d, session %q, %s", code, id, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	with := func(id string) map[string]string {
		return map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	}
	if code, _, body := post(t, ts.URL, list, false, with(id)); code != http.StatusOK {
		t.Fatalf("tools/list in the session: HTTP %d %s", code, body)
	}
	for _, made := range []string{"mcp-session-6f1c9a52-3c1e-4c55-9a0e-0f2d1b7c8e90", "whatever"} {
		if code, _, body := post(t, ts.URL, list, false, with(made)); code != http.StatusNotFound {
			t.Errorf("made-up session id %q: HTTP %d, want 404 (%s)", made, code, body)
		}
	}
	req, _ := http.NewRequestWithContext(testenv.Context(t), http.MethodDelete, ts.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	if code, _, body := post(t, ts.URL, list, false, with(id)); code != http.StatusNotFound {
		t.Errorf("session id after DELETE: HTTP %d, want 404 (%s)", code, body)
	}
}

// A stdio request line past the limit is answered with a JSON-RPC error
// naming the limit and the flag (with the request's id when it comes before
// the bulk), and is never held whole; the next line is served normally.
func TestStdioLineLimit(t *testing.T) {
	srv := server.NewMCPServer("nvbridge-test", "0")
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	p := servePiped(ctx, srv, 1000, newStdio)
	go func() {
		fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"x","arguments":{"text":"%s"}}}`+"\n", strings.Repeat("y", 1<<20))
		fmt.Fprint(p.in, `{"jsonrpc":"2.0","id":42,"method":"ping"}`+"\n")
	}()
	lines := bufio.NewScanner(p.out)
	got := map[float64]map[string]any{}
	for len(got) < 2 && lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", lines.Text())
		}
		id, _ := m["id"].(float64)
		got[id] = m
	}
	e, _ := got[41]["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) ||
		!strings.Contains(fmt.Sprint(e["message"]), "1000 bytes") || !strings.Contains(fmt.Sprint(e["message"]), "--max-request-bytes") {
		t.Errorf("answer to the long line: %v (all: %v)", got[41], got)
	}
	if got[42]["result"] == nil {
		t.Errorf("answer to the next line: %v (all: %v)", got[42], got)
	}
	cancel()
	_ = p.stop()
}
