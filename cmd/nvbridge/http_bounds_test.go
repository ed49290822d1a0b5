package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// answerBound is how long a request may go unanswered before the test
// fails: a deadline, not a measurement (the answers take milliseconds).
const answerBound = 10 * time.Second

// boundedHTTPServer serves srv with newHTTPServer's bounds (o.token "tok").
func boundedHTTPServer(t *testing.T, srv *server.MCPServer, o httpOptions) *httptest.Server {
	t.Helper()
	if srv == nil {
		srv = server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(true))
	}
	o.token, o.maxRequestBytes = "tok", 1<<20
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = newHTTPServer(srv, o)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

// request sends method to url with auth (may be "") and body, and fails the
// test unless it is answered within answerBound.
func request(t *testing.T, method, url, auth, body string, headers map[string]string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(testenv.Context(t), answerBound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s (auth %q): not answered: %v", method, url, auth, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestHTTPEveryRequestAnswered: every path and method gets a prompt answer.
// Without the token, 401 wherever; with it, 404 off the MCP endpoint and
// 405 (with Allow) for a method the endpoint does not serve. An
// authenticated GET / used to open an event stream that never ended.
func TestHTTPEveryRequestAnswered(t *testing.T) {
	ts := boundedHTTPServer(t, nil, httpOptions{})
	for _, path := range []string{"/", "/foo", "/mcp/", "/mcpx", "/mcp/../foo"} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodHead} {
			for auth, want := range map[string]int{"": http.StatusUnauthorized, "Bearer wrong": http.StatusUnauthorized, "Bearer tok": http.StatusNotFound} {
				resp := request(t, method, ts.URL+path, auth, initBody, map[string]string{"Accept": "application/json, text/event-stream"})
				if resp.StatusCode != want {
					t.Errorf("%s %s (auth %q): HTTP %d, want %d", method, path, auth, resp.StatusCode, want)
				}
			}
		}
	}
	for _, method := range []string{http.MethodPut, http.MethodPatch, http.MethodOptions, "BREW"} {
		resp := request(t, method, ts.URL+"/mcp", "Bearer tok", initBody, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != mcpMethods {
			t.Errorf("%s /mcp: HTTP %d, Allow %q; want 405 and %q", method, resp.StatusCode, resp.Header.Get("Allow"), mcpMethods)
		}
		if resp := request(t, method, ts.URL+"/mcp", "", initBody, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s /mcp without the token: HTTP %d, want 401", method, resp.StatusCode)
		}
	}
	// What mcp-go serves at the endpoint stays: initialize, the event
	// stream, HEAD.
	resp := request(t, http.MethodPost, ts.URL+"/mcp", "Bearer tok", initBody,
		map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("POST /mcp initialize: HTTP %d, session %q", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
	}
	resp = request(t, http.MethodGet, ts.URL+"/mcp", "Bearer tok", "", map[string]string{"Accept": "text/event-stream"})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Errorf("GET /mcp: HTTP %d, Content-Type %q; want the event stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp := request(t, http.MethodHead, ts.URL+"/mcp", "Bearer tok", "", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD /mcp: HTTP %d, want 200", resp.StatusCode)
	}
}

// rawConn is a client connection the test drives by hand.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t *testing.T, ts *httptest.Server) *rawConn {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// roundTrip sends one keep-alive request and reads its whole answer.
func (c *rawConn) roundTrip(method, path string) int {
	c.t.Helper()
	fmt.Fprintf(c.conn, "%s %s HTTP/1.1\r\nHost: nvbridge\r\nAuthorization: Bearer tok\r\nContent-Length: 0\r\n\r\n", method, path)
	c.conn.SetReadDeadline(time.Now().Add(answerBound))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// awaitClosed waits for the server to close the connection: a read ends
// with EOF (or a reset), not with the test's deadline.
func (c *rawConn) awaitClosed(what string) {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(answerBound))
	n, err := c.r.Read(make([]byte, 1))
	if n > 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		c.t.Fatalf("%s: the server kept the connection open (read %d bytes, %v)", what, n, err)
	}
}

// TestHTTPIdleConnectionClosed: a keep-alive connection that carries no
// further request is closed by the server after the idle bound; one that
// never finishes its request's headers or body is ended by the read bound
// (a body with 408).
func TestHTTPIdleConnectionClosed(t *testing.T) {
	idle := boundedHTTPServer(t, nil, httpOptions{idleTimeout: 100 * time.Millisecond})
	c := dialRaw(t, idle)
	if code := c.roundTrip(http.MethodGet, "/foo"); code != http.StatusNotFound {
		t.Fatalf("GET /foo: HTTP %d", code)
	}
	c.awaitClosed("an idle keep-alive connection")

	slowServer := boundedHTTPServer(t, nil, httpOptions{readTimeout: 300 * time.Millisecond})
	silent := dialRaw(t, slowServer)
	fmt.Fprint(silent.conn, "POST /mcp HTTP/1.1\r\nHost: nvbridge\r\n") // headers never end
	silent.awaitClosed("a request whose headers never end")

	slow := dialRaw(t, slowServer)
	fmt.Fprintf(slow.conn, "POST /mcp HTTP/1.1\r\nHost: nvbridge\r\nAuthorization: Bearer tok\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(initBody), initBody[:10])
	slow.conn.SetReadDeadline(time.Now().Add(answerBound))
	resp, err := http.ReadResponse(slow.r, nil)
	if err != nil {
		t.Fatalf("a body never finished: not answered: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a body never finished: HTTP %d, want 408", resp.StatusCode)
	}
	slow.awaitClosed("a request whose body never ends")
}

// TestHTTPBoundsSpareLongCalls: the read and idle bounds end idle and slow
// connections, never a tool call that outlasts them or the event stream.
// The call is held until a connection made after it started has been
// closed by the idle bound (an event that comes after the call's own read
// bound passed), then released: it answers, uncancelled, and the stream
// still carries a notification.
func TestHTTPBoundsSpareLongCalls(t *testing.T) {
	srv := server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(true))
	entered, release := make(chan struct{}), make(chan struct{})
	srv.AddTool(mcp.NewTool("hold"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(entered)
		select {
		case <-release:
			return mcp.NewToolResultText("held to the end"), nil
		case <-ctx.Done():
			return mcp.NewToolResultError("cancelled: " + ctx.Err().Error()), nil
		}
	})
	const bound = 100 * time.Millisecond
	ts := boundedHTTPServer(t, srv, httpOptions{idleTimeout: bound, readTimeout: bound})
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	init := request(t, http.MethodPost, ts.URL+"/mcp", "Bearer tok", initBody, hdr)
	id := init.Header.Get("Mcp-Session-Id")
	if init.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: HTTP %d, session %q", init.StatusCode, id)
	}
	hdr["Mcp-Session-Id"], hdr["Mcp-Protocol-Version"] = id, "2025-06-18"

	ctx := testenv.Context(t)
	streamReq, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/mcp", nil)
	streamReq.Header.Set("Authorization", "Bearer tok")
	streamReq.Header.Set("Accept", "text/event-stream")
	streamReq.Header.Set("Mcp-Session-Id", id)
	stream, err := http.DefaultClient.Do(streamReq)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET /mcp stream: %v %v", stream, err)
	}
	defer stream.Body.Close()

	type answer struct {
		code int
		body string
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, string(b), err}
	}()
	select {
	case <-entered:
	case a := <-answered:
		t.Fatalf("the call ended before it was held: %+v", a)
	case <-ctx.Done():
		t.Fatal("the tool was never called")
	}
	later := dialRaw(t, ts)
	later.roundTrip(http.MethodGet, "/foo")
	later.awaitClosed("a connection made during the call")
	close(release)
	a := <-answered
	if a.err != nil || a.code != http.StatusOK || !strings.Contains(a.body, "held to the end") {
		t.Fatalf("the held call: HTTP %d, %v, %s", a.code, a.err, a.body)
	}

	srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), mcp.MethodNotificationToolsListChanged) {
			return
		}
	}
	t.Fatalf("the event stream ended without the notification: %v", lines.Err())
}
