package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/tools"
)

// A panic while the daemon serves one connection answers that request with
// OPERATION_FAILED (its stack goes to the log, not into the reply) and the
// daemon keeps serving. (Tool handlers recover their own panics; this one
// is raised in the daemon's code around the tool, through its call field.)
func TestDaemonConnectionPanicIsAnswered(t *testing.T) {
	var mu sync.Mutex
	var logged strings.Builder
	safego.SetLogf(func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged.WriteString(format)
	})
	defer safego.SetLogf(nil)

	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &daemon{ctx: ctx, idle: time.Hour, logger: log.New(io.Discard, "", 0),
		quit: make(chan string, 1), stopped: make(chan struct{}), status: daemonStatus{Running: true},
		call: func(context.Context, *tools.Env, string, json.RawMessage) (*mcp.CallToolResult, error) {
			var m map[string]int
			//lint:ignore SA5000 a nil map write: a real runtime panic, which the test checks is recovered
			m["boom"]++
			return nil, nil
		}}
	d.timer = time.AfterFunc(time.Hour, func() {})
	defer d.timer.Stop()
	accepted := make(chan struct{})
	go func() { defer close(accepted); d.accept(ln) }()
	defer func() { ln.Close(); <-accepted; d.conns.Wait() }()

	ask := func(req string) daemonReply {
		t.Helper()
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := r.ReadBytes('\n'); err != nil {
			t.Fatalf("hello: %v", err)
		}
		if _, err := c.Write([]byte(req + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: no reply: %v", req, err)
		}
		var rep daemonReply
		if err := json.Unmarshal(line, &rep); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		return rep
	}

	rep := ask(`{"op":"call","tool":"find_definition","arguments":{}}`)
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(rep.Result, &body); err != nil || !rep.IsError {
		t.Fatalf("reply %+v (%v), want an error result", rep, err)
	}
	if body.Error.Code != "OPERATION_FAILED" || !strings.Contains(body.Error.Message, "internal error in a daemon request") ||
		strings.Contains(body.Error.Message, "goroutine") {
		t.Fatalf("error %+v, want a short OPERATION_FAILED", body.Error)
	}
	mu.Lock()
	if !strings.Contains(logged.String(), "recovered panic") {
		t.Errorf("the panic was not logged: %q", logged.String())
	}
	mu.Unlock()

	if rep := ask(`{"op":"status"}`); rep.Status == nil || !rep.Status.Running {
		t.Fatalf("after the panic, status = %+v: the daemon stopped serving", rep)
	}
}
