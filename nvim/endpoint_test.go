package nvim

import (
	"bytes"
	"io"
	"testing"

	"github.com/neovim/go-client/msgpack"
	gonvim "github.com/neovim/go-client/nvim"
)

// The go-client in go.mod keeps its connection where endpointOf looks for
// it, and a notification sent through it goes out on the connection:
// without it starts fall back to requests (a round trip each, and two
// wake-ups more on the way of every read), which nothing else would show.
func TestEndpointOf(t *testing.T) {
	in, _ := io.Pipe()
	out, w := io.Pipe()
	v, err := gonvim.New(in, w, w, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	ep := endpointOf(v)
	if ep == nil {
		t.Fatal("endpointOf found no connection in go-client's Nvim: starts would be requests")
	}
	got := make(chan []byte, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := io.ReadAtLeast(out, b, 5)
		got <- b[:n]
	}()
	if err := ep.Notify("x"); err != nil {
		t.Fatal(err)
	}
	// [2, "x", []]: a notification of method x without arguments.
	if b := <-got; !bytes.Equal(b, []byte{0x93, 0x02, 0xa1, 'x', 0x90}) {
		t.Fatalf("the connection carried % x", b)
	}
	_ = v.Close()
}

// startOps writes the bytes the nested []any it replaces wrote (the
// arguments of startOpsCode: the channel and the ops): a batch of
// one read (a struct argument), of a cancel (no arguments), and of several
// starts with nil, string, map and negative arguments.
func TestStartOpsEncodesAsItsList(t *testing.T) {
	spec := ReadSpec{Path: "/tmp/a b/ü.go", Line: 130, Text: "\tfunc x() {", Positions: map[string]int{"utf-8": 3},
		Method: "textDocument/definition", Params: `{"x":1}`, Methods: []string{"m"}, Analysed: map[string]bool{"2:1": true}}
	batches := map[string][]*asyncStart{
		"read":   {{f: luaRead.f, id: 7, args: []any{spec}}},
		"cancel": {{f: luaCancel.f, id: 1 << 40}},
		"several": {
			{f: luaRead.f, id: 1, args: []any{spec}},
			{f: luaCancel.f, id: 2, args: []any{nil, "x", map[string]any{"k": []int{1, -2}}, -300, 1.5}},
		},
	}
	for name, batch := range batches {
		var want bytes.Buffer
		ops := make([]any, len(batch))
		for i, st := range batch {
			ops[i] = append([]any{st.f.module, st.f.name, st.id, len(st.args)}, st.args...)
		}
		if err := msgpack.NewEncoder(&want).Encode([]any{42, ops}); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := msgpack.NewEncoder(&got).Encode(&startOps{channel: 42, batch: batch}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: startOps wrote\n% x\nthe list\n% x", name, got.Bytes(), want.Bytes())
		}
	}
}
