package dap

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// A panic while the read loop handles an adapter's message ends the
// connection like a broken stream: end sees an OPERATION_FAILED error and
// the request waiting for its response is answered with end's error, not
// left hanging.
func TestConnReadLoopPanicEndsTheConnection(t *testing.T) {
	safego.SetLogf(func(string, ...any) {}) // the stack is expected
	defer safego.SetLogf(nil)
	fromAdapter, adapterOut := io.Pipe()
	adapterIn, toAdapter := io.Pipe()
	defer adapterOut.Close()
	defer adapterIn.Close()
	c := newConn(fromAdapter, toAdapter, func(godap.EventMessage) {
		var m map[string]int
		//lint:ignore SA5000 a nil map write: a real runtime panic, which the test checks is recovered
		m["boom"]++
	}, t.Logf)
	ended := make(chan error, 1)
	go c.serve(func(readErr error) error {
		ended <- readErr
		return apierr.New(apierr.OperationFailed, "the session ended: "+readErr.Error(), "start a new one")
	})
	// The fake adapter reads the request and answers with an event only.
	go func() {
		if _, err := godap.ReadProtocolMessage(bufio.NewReader(adapterIn)); err != nil {
			return
		}
		_ = godap.WriteProtocolMessage(adapterOut, &godap.StoppedEvent{
			Event: godap.Event{ProtocolMessage: godap.ProtocolMessage{Seq: 1, Type: "event"}, Event: "stopped"},
			Body:  godap.StoppedEventBody{Reason: "breakpoint", ThreadId: 1},
		})
	}()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.request(ctx, &godap.ContinueRequest{Request: godap.Request{Command: "continue"}})
	if e := apierr.As(err); err == nil || e.Code != apierr.OperationFailed || !strings.Contains(e.Message, "the session ended: OPERATION_FAILED: internal error in reading the debug adapter's messages") {
		t.Fatalf("request: %v, want end's OPERATION_FAILED", err)
	}
	readErr := <-ended
	var ae *apierr.Error
	if !errors.As(readErr, &ae) || ae.Code != apierr.OperationFailed || strings.Contains(ae.Message, "goroutine") {
		t.Fatalf("end got %v, want a short OPERATION_FAILED", readErr)
	}
	// Later requests fail at once with the same error.
	if _, err := c.request(ctx, &godap.ThreadsRequest{Request: godap.Request{Command: "threads"}}); apierr.As(err).Code != apierr.OperationFailed {
		t.Fatalf("later request: %v", err)
	}
}
