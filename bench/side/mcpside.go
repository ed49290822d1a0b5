package side

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Bridge is one MCP client session with `nvbridge mcp` (the built binary,
// over stdio): every call goes through the real MCP path (JSON-RPC
// framing, the server's dispatch, schemas, structured content).
type Bridge struct {
	Client *client.Client
	Cmd    *exec.Cmd
	stderr bytes.Buffer
	last   *mcp.CallToolResult // the last call's answer (AnswerCodec)
}

// Env is the environment the harness gives the processes it starts: the
// checkout's private Neovim and servers first on PATH, and Go's own bin
// (gopls needs `go`).
func Env(repo string) []string {
	path := filepath.Join(repo, ".deps", "bin") + string(os.PathListSeparator) + os.Getenv("PATH") +
		string(os.PathListSeparator) + "/usr/local/go/bin"
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}

// startStdio starts binary with args and env in dir as an MCP server on
// stdio, its stderr written to stderr; cmd is the process it started (nil
// when none was).
func startStdio(ctx context.Context, binary string, env, args []string, dir string, stderr io.Writer) (*transport.Stdio, *exec.Cmd, error) {
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(binary, env, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd = exec.Command(command, args...)
			cmd.Env, cmd.Dir = env, dir
			return cmd, nil
		}),
		transport.WithCommandStderrWriter(stderr))
	err := tr.Start(ctx)
	return tr, cmd, err
}

// StartBridge runs `binary [extra] --root root --timeout 2m mcp` and
// initializes an MCP session with it.
func StartBridge(ctx context.Context, binary, repo, root string, extra ...string) (*Bridge, error) {
	b := &Bridge{}
	env := Env(repo)
	args := append([]string{}, extra...)
	if log := os.Getenv("NVBRIDGE_SIDE_LOG"); log != "" {
		// Every exchange with Neovim, with its duration (where the time
		// goes).
		args = append(args, "--log", log)
	}
	args = append(args, "--root", root, "--timeout", "2m", "mcp")
	if prof := os.Getenv("NVBRIDGE_SIDE_CPUPROFILE"); prof != "" {
		// A CPU profile of the nvbridge process over the session (where
		// its own time goes; written when the session ends).
		args = append(args, "--cpuprofile", prof)
	}
	tr, cmd, err := startStdio(ctx, binary, env, args, root, &b.stderr)
	b.Cmd = cmd
	if err != nil {
		return nil, fmt.Errorf("start nvbridge: %w", err)
	}
	// The initialize handshake of the 2025-11-25 protocol, as the agents'
	// clients speak it (and ping is a real round trip there).
	b.Client = client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-sidebyside", Version: "1"}
	if _, err := b.Client.Initialize(ctx, init); err != nil {
		b.Close()
		return nil, fmt.Errorf("initialize: %w (stderr: %s)", err, b.stderr.String())
	}
	return b, nil
}

// Call calls a tool and returns its structured content; a tool error is
// returned as an error with its text.
func (b *Bridge) Call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := b.Client.CallTool(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	b.last = res
	// The client has decoded the answer already: use it as it is (a
	// second encode and decode here would be timed as nvbridge's).
	out, ok := res.StructuredContent.(map[string]any)
	if !ok {
		body, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(body, &out)
	}
	if res.IsError {
		body, _ := json.Marshal(res.StructuredContent)
		return out, fmt.Errorf("%s %v: %s", tool, args, body)
	}
	return out, nil
}

// AnswerCodec times, outside any measured call, what carrying the last
// call's answer costs at both ends of the MCP session: encoding it as a
// JSON-RPC response (as the server does) and decoding that line the way
// mcp-go's stdio client does (an envelope probe, the response, then the
// tool result: every pass over the whole answer). It returns the time and
// the line's size. A bridge answering with the same content pays this
// whatever it does before: the report counts it in the floor.
func (b *Bridge) AnswerCodec() (ms float64, size int, err error) {
	if b.last == nil {
		return 0, 0, nil
	}
	res := b.last
	b.last = nil // measured once: the next op may send no tool call (ping)
	start := time.Now()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": res})
	if err != nil {
		return 0, 0, err
	}
	var base struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *mcp.RequestId `json:"id,omitempty"`
		Method  string         `json:"method,omitempty"`
	}
	if err := json.Unmarshal(line, &base); err != nil {
		return 0, 0, err
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return 0, 0, err
	}
	if _, err := mcp.ParseCallToolResult(&resp.Result); err != nil {
		return 0, 0, err
	}
	return float64(time.Since(start).Microseconds()) / 1000, len(line), nil
}

// Close ends the session (the binary stops its Neovim and servers).
func (b *Bridge) Close() {
	if b.Client != nil {
		b.Client.Close()
	}
}
