package fakelsp_test

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestAwait drives the fake in-process over a pipe, one message at a time
// (the fake handles messages in order): a request whose behaviour is
// AwaitPrefix+METHOD is answered at once when METHOD was already received,
// else held (later requests are answered meanwhile) until METHOD arrives,
// then answered with the behaviour after the method.
func TestAwait(t *testing.T) {
	ctx := testenv.Context(t)
	ours, theirs := net.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- fakelsp.Serve(ctx, theirs, theirs, fakelsp.Script{
			NoDiagnostics: true,
			Methods: map[string]string{
				protocol.MethodTextDocumentHover:          fakelsp.AwaitPrefix + protocol.MethodCancelRequest + ":" + fakelsp.Log,
				protocol.MethodTextDocumentDocumentSymbol: fakelsp.AwaitPrefix + protocol.MethodInitialize,
			},
		})
	}()
	stream := jsonrpc2.NewStream(ours)
	t.Cleanup(func() {
		stream.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	send := func(msg jsonrpc2.Message, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := stream.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	call := func(id int32, method string) {
		t.Helper()
		send(jsonrpc2.NewCall(jsonrpc2.NewNumberID(id), method, map[string]any{}))
	}
	// next reads the next response; it must answer request id.
	next := func(id int32) json.RawMessage {
		t.Helper()
		msg, _, err := stream.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		resp, ok := msg.(*jsonrpc2.Response)
		if !ok {
			t.Fatalf("got %T, want the response to %d", msg, id)
		}
		if got := fmt.Sprint(resp.ID()); got != fmt.Sprint(jsonrpc2.NewNumberID(id)) {
			t.Fatalf("got the response to %s, want the one to %d", got, id)
		}
		if resp.Err() != nil {
			t.Fatal(resp.Err())
		}
		return resp.Result()
	}

	call(1, protocol.MethodInitialize)
	next(1)
	// Awaiting a message already received: answered at once (OK: []).
	call(2, protocol.MethodTextDocumentDocumentSymbol)
	if got := string(next(2)); got != "[]" {
		t.Fatalf("documentSymbol awaiting initialize = %s, want []", got)
	}
	// Awaiting one still to come: held while request 4 is answered.
	call(3, protocol.MethodTextDocumentHover)
	call(4, protocol.MethodTextDocumentDocumentSymbol)
	next(4)
	send(jsonrpc2.NewNotification(protocol.MethodCancelRequest, map[string]any{"id": 99}))
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := json.Unmarshal(next(3), &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(hover.Contents.Value, "textDocument/hover id=3\ntextDocument/documentSymbol id=4\n$/cancelRequest id=99") {
		t.Fatalf("hover released by $/cancelRequest = %q, want the log ending with hover, documentSymbol, the cancel", hover.Contents.Value)
	}
}
