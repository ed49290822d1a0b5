package dap

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// Faults are injected with a scripted fake adapter: the test binary runs
// itself as a DAP adapter over stdio when NVBRIDGE_FAKE_DAP names a script.
// Real adapters (dlv, debugpy) are used everywhere else.

func TestMain(m *testing.M) {
	if script := os.Getenv("NVBRIDGE_FAKE_DAP"); script != "" {
		fakeAdapter(script)
		os.Exit(0)
	}
	registerFake()
	os.Exit(testenv.MatrixMain(m)) // the language matrix's debugging cells: testenv.Verified

}

// registerFake registers the language "fake" (.fake files) in this test
// binary's registry, its adapter this binary run with NVBRIDGE_FAKE_DAP.
func registerFake() {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	lang.Register(&lang.Language{Name: "fake", Extensions: []string{".fake"}, Debug: &lang.DebugAdapter{
		Name: "fake-adapter", Commands: [][]string{{exe, "-test.run=^$"}}, Transport: lang.DebugStdio,
		Install: "(test fake)", EvaluateContext: "watch",
		Launch: func(LaunchSpec) map[string]any { return map[string]any{"request": "launch"} }}})
}

// fakeAdapter answers initialize, then follows script:
//
//	hang-launch   never answers launch (nor sends initialized)
//	hang-next     launches and stops on entry, never answers next
//	garbage       writes bytes that are not DAP after initialize
//	exit-launch   exits with status 7 on launch
func fakeAdapter(script string) {
	// A fake never outlives its test.
	time.AfterFunc(2*time.Minute, func() { os.Exit(3) })
	r := bufio.NewReader(os.Stdin)
	seq := 0
	send := func(m godap.Message) {
		seq++
		switch x := m.(type) {
		case godap.ResponseMessage:
			x.GetResponse().Seq = seq
			x.GetResponse().Type = "response"
		case godap.EventMessage:
			x.GetEvent().Seq = seq
			x.GetEvent().Type = "event"
		}
		_ = godap.WriteProtocolMessage(os.Stdout, m)
	}
	ok := func(req *godap.Request) godap.Response {
		return godap.Response{RequestSeq: req.Seq, Command: req.Command, Success: true}
	}
	for {
		msg, err := godap.ReadProtocolMessage(r)
		if err != nil {
			return
		}
		req, isReq := msg.(godap.RequestMessage)
		if !isReq {
			continue
		}
		q := req.GetRequest()
		switch q.Command {
		case "initialize":
			send(&godap.InitializeResponse{Response: ok(q), Body: godap.Capabilities{SupportsConfigurationDoneRequest: true}})
			if script == "garbage" {
				os.Stdout.WriteString("this is not a DAP header\r\n\r\n{")
				os.Stdout.Close()
				select {} // stays alive: the connection is what broke
			}
		case "launch":
			switch script {
			case "hang-launch":
				continue
			case "exit-launch":
				os.Exit(7)
			}
			send(&godap.LaunchResponse{Response: ok(q)})
			send(&godap.InitializedEvent{Event: godap.Event{Event: "initialized"}})
		case "configurationDone":
			send(&godap.ConfigurationDoneResponse{Response: ok(q)})
			send(&godap.StoppedEvent{Event: godap.Event{Event: "stopped"}, Body: godap.StoppedEventBody{Reason: "entry", ThreadId: 1}})
		case "threads":
			send(&godap.ThreadsResponse{Response: ok(q), Body: godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: 1, Name: "main"}}}})
		case "stackTrace":
			send(&godap.StackTraceResponse{Response: ok(q), Body: godap.StackTraceResponseBody{StackFrames: []godap.StackFrame{{Id: 1, Name: "main", Line: 1}}}})
		case "next":
			// hang-next: never answered.
		case "disconnect":
			send(&godap.DisconnectResponse{Response: ok(q)})
			os.Exit(0)
		default:
			send(&godap.ErrorResponse{Response: godap.Response{RequestSeq: q.Seq, Command: q.Command, Message: "not in the script"}})
		}
	}
}

// fakeManager makes the fake adapter (language "fake", registered by
// TestMain) run script, and returns a manager on a temp workspace with a
// .fake program.
func fakeManager(t *testing.T, script string) (*Manager, string) {
	t.Helper()
	t.Setenv("NVBRIDGE_FAKE_DAP", script)
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/prog.fake", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(root, nil, t.Logf)
	t.Cleanup(m.Close)
	return m, "prog.fake"
}

// A launch the adapter never answers is a TIMEOUT when the caller's bound
// ends, and the adapter is ended (no session left).
func TestFakeAdapterHangsOnLaunch(t *testing.T) {
	m, prog := fakeManager(t, "hang-launch")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := m.Start(ctx, StartRequest{Program: prog, Wait: time.Second})
	if apierr.CodeOf(err) != apierr.Timeout {
		t.Fatalf("start: %v, want TIMEOUT", err)
	}
	if len(m.sessionList()) != 0 {
		t.Fatal("a failed start left a session")
	}
}

// A step the adapter never answers is a TIMEOUT; the session can still be
// stopped, and stop ends the adapter even though it is hung.
func TestFakeAdapterHangsOnStep(t *testing.T) {
	m, prog := fakeManager(t, "hang-next")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start, err := m.Start(ctx, StartRequest{Program: prog, Wait: time.Minute})
	if err != nil || start.Reason != "entry" {
		t.Fatalf("start: %+v %v", start, err)
	}
	pid := m.sessionList()[0].cmd.Process.Pid
	short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancelShort()
	if _, err := m.Control(short, "", "step_over", 0, time.Minute, "agent"); apierr.CodeOf(err) != apierr.Timeout {
		t.Fatalf("step on a hung adapter: %v, want TIMEOUT", err)
	}
	if _, err := m.Stop(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if st, ok := readStat(pid); ok && !st.zombie {
		t.Fatalf("the adapter %d survived stop", pid)
	}
}

// Bytes that are not DAP end the session with a clear error.
func TestFakeAdapterSendsGarbage(t *testing.T) {
	m, prog := fakeManager(t, "garbage")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := m.Start(ctx, StartRequest{Program: prog, Wait: time.Minute})
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "fake-adapter closed its connection") {
		t.Fatalf("start: %v", err)
	}
}

// An adapter that exits during launch is reported with its exit status.
func TestFakeAdapterExitsOnLaunch(t *testing.T) {
	m, prog := fakeManager(t, "exit-launch")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := m.Start(ctx, StartRequest{Program: prog, Wait: time.Minute})
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "fake-adapter exited unexpectedly (exit status 7)") {
		t.Fatalf("start: %v", err)
	}
}
