package nvim

import (
	"bytes"
	"io"
	"testing"

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
