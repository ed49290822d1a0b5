package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// The stdio transport is checked against the one it replaces: mcp-go's
// StdioServer behind nvbridge's line bound and answer filter (as
// cmd/nvbridge served stdio before), each line of one script sent to both,
// around the same kind of real mcp-go server. Every answer must be the
// same, and what only the new one does (the arguments cut out of a large
// call) must not show.

// mcpgoStdio serves srv the way cmd/nvbridge did before stdio.go: mcp-go's
// StdioServer reading lines bounded by max bytes (a longer one answered
// with tooLargeMessage), every line shown to the answer filter, every
// answer to a cancelled request dropped.
func mcpgoStdio(ctx context.Context, srv *server.MCPServer, stdin io.Reader, stdout io.Writer, max int) error {
	out := &lockedWriter{w: stdout}
	f := newAnswerFilter()
	pr, pw := io.Pipe()
	go func() {
		r := &lineReader{r: bufio.NewReaderSize(stdin, 64<<10), max: max, tooLong: func(prefix []byte) {
			_, _ = out.Write(append(tooLargeMessage(int64(max), prefix), '\n'))
		}}
		for {
			line, err := r.next()
			if err == nil {
				f.incoming("", line)
			}
			if _, werr := pw.Write(line); werr != nil {
				return
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	return stdio.Listen(ctx, pr, filteredWriter{f: f, w: out})
}

// filteredWriter drops the answer to a cancelled request (mcpgoStdio's
// output: mcp-go writes one message per Write).
type filteredWriter struct {
	f *answerFilter
	w io.Writer
}

func (w filteredWriter) Write(p []byte) (int, error) {
	if w.f.drop("", p) {
		return len(p), nil
	}
	return w.w.Write(p)
}

// newStdio serves srv with stdio.go's transport.
func newStdio(ctx context.Context, srv *server.MCPServer, stdin io.Reader, stdout io.Writer, max int) error {
	return newStdioServer(srv, stdout, max, log.New(io.Discard, "", 0)).Listen(ctx, stdin)
}

// scriptServer is a real mcp-go server, configured as tools.NewServer
// configures nvbridge's (the arguments hook first), with tools that show
// what they were given and that use the session: sampling, elicitation,
// roots; one panics, one waits to be cancelled.
func scriptServer(slowStarted chan<- struct{}) *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(tools.RestoreCallArguments)
	s := server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(false), server.WithLogging(), server.WithHooks(hooks))
	// The stdio transport runs its calls without HandleMessage, as it
	// runs nvbridge's (tools.NewServer registers the same, with its
	// middleware). No recovery here: boom's panic is the transport's.
	tools.RegisterCallDispatcher(s, hooks)
	echo := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, _ := req.GetRawArguments().(json.RawMessage)
		sum := sha256.Sum256(raw)
		var args map[string]any
		_ = req.BindArguments(&args)
		session := server.ClientSessionFromContext(ctx)
		info := session.(server.SessionWithClientInfo).GetClientInfo()
		return mcp.NewToolResultText(fmt.Sprintf("%s %d %s keys=%d client=%s/%s version=%s", req.Params.Name, len(raw),
			hex.EncodeToString(sum[:8]), len(args), info.Name, info.Version, server.RequestProtocolVersion(ctx))), nil
	}
	s.AddTool(mcp.NewTool("echo"), echo)
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		slowStarted <- struct{}{}
		<-ctx.Done()
		return mcp.NewToolResultText("stopped: " + ctx.Err().Error()), nil
	})
	s.AddTool(mcp.NewTool("sample"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req := mcp.CreateMessageRequest{}
		req.Messages = []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("hi")}}
		req.MaxTokens = 5
		//lint:ignore SA1019 the transport must still carry sampling for clients of earlier protocol versions
		r, err := tools.ServerOf(ctx).RequestSampling(ctx, req)
		if err != nil {
			return mcp.NewToolResultText("sampling error: " + err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("sampled %s %v", r.Model, r.Content)), nil
	})
	s.AddTool(mcp.NewTool("elicit"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req := mcp.ElicitationRequest{}
		req.Params.Message = "name?"
		req.Params.RequestedSchema = map[string]any{"type": "object"}
		r, err := tools.ServerOf(ctx).RequestElicitation(ctx, req)
		if err != nil {
			return mcp.NewToolResultText("elicitation error: " + err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("elicited %s %v", r.Action, r.Content)), nil
	})
	s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := tools.ServerOf(ctx).RequestRoots(ctx, mcp.ListRootsRequest{})
		if err != nil {
			return mcp.NewToolResultText("roots error: " + err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("roots %v", r.Roots)), nil
	})
	return s
}

// bigArguments is a tool call's arguments of about n bytes: many edits,
// escapes and multibyte text, members in no particular order.
func bigArguments(n int) string {
	var b strings.Builder
	b.WriteString(`{"file":"a/b.go", "edits" : [`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"line":%d,"new_text":"x := \"é😀\\n\\u00e9\" // %d"}`, i+1, i)
	}
	b.WriteString(`],"preview":true}`)
	return b.String()
}

// scriptResult is what a transport answered a script: each answer by its
// id, the methods of the requests it sent the client, the other lines.
type scriptResult struct {
	answers  map[string]any
	requests []string
	other    []string
}

// runScript sends the script's lines to a transport serving a new
// scriptServer and answers what the server asks the client.
func runScript(t *testing.T, serve func(context.Context, *server.MCPServer, io.Reader, io.Writer, int) error) scriptResult {
	t.Helper()
	slowStarted := make(chan struct{}, 1)
	srv := scriptServer(slowStarted)
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	p := servePiped(ctx, srv, 200<<10, serve)
	send := p.sender(t)
	res := scriptResult{answers: map[string]any{}}
	got := make(chan string, 64) // the id of each answer as it comes
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		lines := bufio.NewScanner(p.out)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Errorf("output line is not JSON: %q", lines.Text())
				continue
			}
			method, _ := m["method"].(string)
			if method != "" && m["id"] != nil {
				res.requests = append(res.requests, method)
				id, _ := json.Marshal(m["id"])
				switch method {
				case "sampling/createMessage":
					go send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","model":"m1","content":{"type":"text","text":"ok"}}}`, id))
				case "elicitation/create":
					go send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"n"}}}`, id))
				case "roots/list":
					go send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-1,"message":"no roots here"}}`, id))
				}
				continue
			}
			if method != "" {
				res.other = append(res.other, lines.Text())
				continue
			}
			id, _ := json.Marshal(m["id"])
			if _, dup := res.answers[string(id)]; dup && string(id) != "null" {
				t.Errorf("two answers to %s", id)
			}
			if string(id) == "null" {
				res.other = append(res.other, lines.Text())
			} else {
				res.answers[string(id)] = m
			}
			got <- string(id)
		}
	}()
	await := func(ids ...string) {
		want := map[string]int{}
		for _, id := range ids {
			want[id]++
		}
		for len(want) > 0 {
			select {
			case id := <-got:
				if want[id]--; want[id] <= 0 {
					delete(want, id)
				}
			case <-ctx.Done():
				t.Fatalf("no answer to %v", want)
			}
		}
	}
	call := func(id, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}`, id, tool, args)
	}
	big := bigArguments(60 << 10)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"script","version":"9"}}}`)
	await("1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	send(`not json`)
	send(``)
	send(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	send(`{"jsonrpc":"1.0","id":4,"method":"ping"}`)
	send(`{"jsonrpc":"2.0","id":5,"method":"no/such"}`)
	send(call("6", "echo", `{"a":1}`))
	send(call(`"big-7"`, "echo", big))
	// The arguments named in other case: encoding/json reads them as the
	// arguments too; the transport leaves such a call whole.
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"Arguments":%s,"name":"echo"}}`, big))
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"echo","arguments":%s,"arguments":{"b":2}}}`, big))
	send(fmt.Sprintf(`{"id":19,"params":{"_meta":{"progressToken":"p"},"arguments":%s,"name":"echo"},"method":"tools/call","jsonrpc":"2.0","extra":[1]}`, big))
	send(call("9", "boom", `{}`))
	send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","id":null}`)
	send(call("10", "sample", `{}`))
	send(call("11", "elicit", `{}`))
	send(call("12", "roots", `{}`))
	send(call("20", "nosuchtool", big))
	send(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"echo","arguments":` + big[:len(big)-1] + `}`)
	// not json, the empty line, the batch and the cut line are answered
	// with no id.
	await("2", "null", "null", "null", "4", "5", "6", `"big-7"`, "8", "18", "19", "9", "10", "11", "12", "20", "null")
	send(call("13", "slow", `{}`))
	<-slowStarted
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":13}}`)
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"t":"%s"}}}`, strings.Repeat("y", 300<<10)))
	send(`{"jsonrpc":"2.0","id":15,"method":"ping"}`)
	await("14", "15")
	if err := p.stop(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Listen: %v", err)
	}
	<-readDone
	return res
}

// Every line of the script is answered by the new transport as by mcp-go's
// server behind nvbridge's bound and filter: parse errors, a batch, a bad
// version, an unknown method, tool calls small and large (the tool sees
// the same raw arguments, to the byte), in odd shapes, a panic, responses
// to no request, sampling, elicitation and roots round trips, a cancelled
// call (no answer), a line past the bound.
func TestStdioTransportAnswersAsMcpGo(t *testing.T) {
	old := runScript(t, mcpgoStdio)
	cur := runScript(t, newStdio)
	if !reflect.DeepEqual(old.answers, cur.answers) {
		for id, a := range old.answers {
			if !reflect.DeepEqual(a, cur.answers[id]) {
				t.Errorf("answer to %s:\n mcp-go: %v\n    new: %v", id, a, cur.answers[id])
			}
		}
		for id, a := range cur.answers {
			if _, ok := old.answers[id]; !ok {
				t.Errorf("answer to %s only from the new transport: %v", id, a)
			}
		}
	}
	slices.Sort(old.requests) // the calls asking them run at once
	slices.Sort(cur.requests)
	if !reflect.DeepEqual(old.requests, cur.requests) || len(cur.requests) != 3 {
		t.Errorf("requests to the client: mcp-go %v, new %v", old.requests, cur.requests)
	}
	if !reflect.DeepEqual(old.other, cur.other) {
		t.Errorf("other lines:\n mcp-go: %q\n    new: %q", old.other, cur.other)
	}
	if _, ok := cur.answers["13"]; ok {
		t.Errorf("the cancelled call was answered: %v", cur.answers["13"])
	}
	// The checks above compare; these say the script exercised what it
	// means to (a transport answering everything wrongly alike would pass).
	text := func(id string) string {
		m, _ := cur.answers[id].(map[string]any)
		b, _ := json.Marshal(m["result"])
		return string(b)
	}
	big := bigArguments(60 << 10)
	sum := sha256.Sum256([]byte(big))
	for _, id := range []string{`"big-7"`, "19"} {
		if want := fmt.Sprintf("echo %d %s keys=3 client=script/9", len(big), hex.EncodeToString(sum[:8])); !strings.Contains(text(id), want) {
			t.Errorf("answer to %s: %s, want it to contain %q", id, text(id), want)
		}
	}
	for id, want := range map[string]string{"10": "sampled m1", "11": "elicited accept map[name:n]", "12": "roots error: list root request failed: no roots here"} {
		if !strings.Contains(text(id), want) {
			t.Errorf("answer to %s: %s, want %q", id, text(id), want)
		}
	}
	if e, _ := cur.answers["14"].(map[string]any)["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Errorf("answer to the long line: %v", cur.answers["14"])
	}
	if len(cur.other) != 4 { // not json, the empty line, the batch, the cut line
		t.Errorf("answers without an id: %q", cur.other)
	}
}

func TestArgumentsSpan(t *testing.T) {
	for _, c := range []struct {
		params string
		want   string // the span's text, "" for none
	}{
		{`{"name":"x","arguments":{"a":[1,2]}}`, `{"a":[1,2]}`},
		{`{ "arguments" : "s\"}" , "name":"x"}`, `"s\"}"`},
		{`{"name":"x"}`, ""},
		{`{"Arguments":{},"name":"x"}`, ""},
		{`{"arguments":{},"arguments":{"b":1}}`, ""},
		{`{"arguments":{},"ARGUMENTS":{}}`, ""},
		{`{"na\u006de":"x","arguments":null}`, "null"},
		{`[1]`, ""},
	} {
		start, end, ok := argumentsSpan([]byte(c.params))
		got := ""
		if ok {
			got = c.params[start:end]
		}
		if got != c.want {
			t.Errorf("argumentsSpan(%s) = %q, want %q", c.params, got, c.want)
		}
		// The walk over the bytes answers as encoding/json's tokens do.
		if s, e, ok, sure := scanArguments([]byte(c.params)); sure {
			ds, de, dok := decodeArguments([]byte(c.params))
			if s != ds || e != de || ok != dok {
				t.Errorf("scanArguments(%s) = %d %d %v, decodeArguments %d %d %v", c.params, s, e, ok, ds, de, dok)
			}
		}
	}
	// Every shape of value before and after the arguments.
	values := []string{`1`, `-2.5e3`, `true`, `null`, `"s"`, `"a\"}]"`, `{}`, `[]`, `{"a":[1,{"b":"}"}]}`, `[1, "x", {"y": null}]`, `"é😀\u00e9"`}
	for _, before := range values {
		for _, args := range values {
			for _, after := range values {
				for _, params := range []string{
					`{"x":` + before + `,"arguments":` + args + `,"z":` + after + `}`,
					"{ \"x\" :\t" + before + " ,\n\"arguments\"\r: " + args + " , \"z\":" + after + " }",
					`{"arguments":` + args + `}`,
				} {
					s, e, ok, sure := scanArguments([]byte(params))
					ds, de, dok := decodeArguments([]byte(params))
					if !sure || s != ds || e != de || ok != dok || !ok || params[s:e] != args {
						t.Errorf("%s: scan %d %d %v %v, decode %d %d %v", params, s, e, ok, sure, ds, de, dok)
					}
				}
			}
		}
	}
}

// BenchmarkStdioBigCall is one edit_buffer-sized tool call (60 KB of
// arguments, answered by a tool that decodes them strictly as nvbridge's
// tools do) through each transport: mcp-go's stdio server behind
// nvbridge's filter, and stdio.go's.
func BenchmarkStdioBigCall(b *testing.B) {
	args := bigArguments(60 << 10)
	for _, side := range []struct {
		name  string
		serve func(context.Context, *server.MCPServer, io.Reader, io.Writer, int) error
	}{{"mcpgo", mcpgoStdio}, {"stdio.go", newStdio}} {
		b.Run(side.name, func(b *testing.B) {
			benchStdio(b, side.serve, args)
		})
	}
}

// BenchmarkStdioSmallCall is a read's tool call (a position) through each
// transport.
func BenchmarkStdioSmallCall(b *testing.B) {
	args := `{"file":"logger.go","line":266,"symbol":"Sugar"}`
	for _, side := range []struct {
		name  string
		serve func(context.Context, *server.MCPServer, io.Reader, io.Writer, int) error
	}{{"mcpgo", mcpgoStdio}, {"stdio.go", newStdio}} {
		b.Run(side.name, func(b *testing.B) {
			benchStdio(b, side.serve, args)
		})
	}
}

func benchStdio(b *testing.B, serve func(context.Context, *server.MCPServer, io.Reader, io.Writer, int) error, args string) {
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(tools.RestoreCallArguments)
	srv := server.NewMCPServer("bench", "0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	type edit struct {
		Line    int    `json:"line"`
		NewText string `json:"new_text"`
	}
	srv.AddTool(mcp.NewTool("edit"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw, _ := req.GetRawArguments().(json.RawMessage)
		var in struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Symbol  string `json:"symbol"`
			Edits   []edit `json:"edits"`
			Preview bool   `json:"preview"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(fmt.Sprintf("%d edits", len(in.Edits))), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := servePiped(ctx, srv, 4<<20, serve)
	inW := p.in
	out := bufio.NewReaderSize(p.out, 1<<16)
	line := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"edit","arguments":%s}}`+"\n", id, args))
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"0"}}}` + "\n"
	if _, err := io.WriteString(inW, init); err != nil {
		b.Fatal(err)
	}
	if _, err := out.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	lines := make([][]byte, b.N)
	for i := range lines {
		lines[i] = line(i + 1)
	}
	b.SetBytes(int64(len(lines[0])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := inW.Write(lines[i]); err != nil {
			b.Fatal(err)
		}
		answer, err := out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(answer, []byte(" edits")) {
			b.Fatalf("answer: %s", answer)
		}
	}
	b.StopTimer()
	_ = p.stop()
}

// piped is a stdio server run over in-process pipes, as it runs on its
// process's stdin and stdout: what the tests and benchmarks of the
// transport drive.
type piped struct {
	in  *io.PipeWriter
	out *io.PipeReader
	// done receives what serve returned, once.
	done chan error
	mu   sync.Mutex
}

// servePiped runs serve on srv (max: the longest line) over pipes until
// its input is closed (stop) or ctx ends; its output is closed after.
func servePiped(ctx context.Context, srv *server.MCPServer, max int, serve func(context.Context, *server.MCPServer, io.Reader, io.Writer, int) error) *piped {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &piped{in: inW, out: outR, done: make(chan error, 1)}
	go func() {
		p.done <- serve(ctx, srv, inR, outW, max)
		outW.Close()
	}()
	return p
}

// sender writes a line (and its newline) to the server's input, from any
// goroutine; a failed write fails tb.
func (p *piped) sender(tb testing.TB) func(line string) {
	return func(line string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if _, err := io.WriteString(p.in, line+"\n"); err != nil {
			tb.Errorf("send: %v", err)
		}
	}
}

// stop closes the server's input and returns what serve returned.
func (p *piped) stop() error {
	p.in.Close()
	return <-p.done
}
