package nvim

// Starting asynchronous operations (Async) in Neovim, several per message
// when callers start them together. A call hierarchy walk starts eight
// requests at once, understand_symbol five: each start was a round trip of
// its own, with Go's and Neovim's cost per message, while the servers did
// the real work. Starts are queued; one sender sends what is queued in one
// message, and whatever was queued meanwhile in the next (a group commit:
// nothing waits for company, a lone start goes at once). The queue is sent
// in order, so a cancel queued after a start reaches Neovim after it.
//
// A message is a notification (notifyBatch), written by the caller that
// found no sender running: nothing waits for Neovim's answer to it. Only
// when go-client's connection cannot be reached (endpointOf) is it a
// request, sent by a goroutine of its own that waits for the answer.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/neovim/go-client/msgpack"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// asyncStart is f(channel, id, args...) waiting to be sent.
type asyncStart struct {
	f    *luaFunc
	id   int64
	args []any
	// sent receives the error of the call that carried it (nil: Neovim
	// ran it; the operation answers with nvbridge_done).
	sent chan error
}

// queueStart queues a start and makes sure a sender runs: when starts are
// notifications (s.ep), the caller itself when none runs (a send is a
// write, not a round trip), else a goroutine of its own.
func (s *Session) queueStart(f *luaFunc, id int64, args []any) *asyncStart {
	st := &asyncStart{f: f, id: id, args: args, sent: make(chan error, 1)}
	s.startMu.Lock()
	s.startQueue = append(s.startQueue, st)
	if s.sending {
		s.startMu.Unlock()
		return st
	}
	s.sending = true
	s.startMu.Unlock()
	if s.ep != nil {
		s.sendStarts()
		return st
	}
	safego.Go("starting Neovim operations", s.sendStarts, func(err error) {
		// sendStarts delivers its own panics; this is the last guard.
		s.startMu.Lock()
		s.sending = false
		s.startMu.Unlock()
	})
	return st
}

// sendStarts sends the queue until it is empty, each batch in one call.
func (s *Session) sendStarts() {
	for {
		s.startMu.Lock()
		batch := s.startQueue
		s.startQueue = nil
		if len(batch) == 0 {
			s.sending = false
			s.startMu.Unlock()
			return
		}
		s.startMu.Unlock()
		err := safego.Call("starting Neovim operations", func() { s.startBatch(batch) })
		if err != nil {
			for _, st := range batch {
				select {
				case st.sent <- err:
				default: // startBatch had answered it
				}
			}
		}
	}
}

// startBatch sends one batch: a lone start as its function itself (its
// Lua error is the call's, as for any call), several through
// async.start_ops, which runs each under pcall (one's error ends that
// operation, with nvbridge_done, and not the others).
func (s *Session) startBatch(batch []*asyncStart) {
	if s.ep != nil {
		s.notifyBatch(batch)
		return
	}
	var name string
	var args []any
	if len(batch) == 1 {
		st := batch[0]
		// start traced the operation with its arguments already.
		name = st.f.String() + "(#" + strconv.FormatInt(st.id, 10) + ")"
		args = append([]any{st.f.module, st.f.name, s.channel, st.id}, st.args...)
	} else {
		ops := make([]any, len(batch))
		fns := make([]string, len(batch))
		for i, st := range batch {
			// {module, name, id, count, args...}: the count, because a
			// nil argument leaves a hole in the Lua table.
			ops[i] = append([]any{st.f.module, st.f.name, st.id, len(st.args)}, st.args...)
			fns[i] = "#" + strconv.FormatInt(st.id, 10) + " " + st.f.name
		}
		name = fmt.Sprintf("%s(%d: %s)", luaStartOps.f, len(batch), strings.Join(fns, ", "))
		args = []any{luaStartOps.f.module, luaStartOps.f.name, s.channel, ops}
	}
	start := time.Now()
	s.roundTrips.Add(1)
	// Not bounded by a caller's context: the batch is several callers'.
	// A caller whose context ends stops waiting (Async), and a Neovim
	// that stops answering ends the connection, which ends this call.
	err := s.inSessionTerms(s.v.ExecLua(callCode, nil, args...))
	s.traceRPC(name, start, err)
	for _, st := range batch {
		st.sent <- err
	}
}

// notifyBatch sends one batch as a notification (nvim_exec_lua of
// async.start_ops, whatever its size): nothing waits for Neovim's answer
// to it, since each operation answers with nvbridge_done, and start_ops
// turns an operation's Lua error into that answer. A call made once the
// notification is written reaches Neovim after it (Neovim serves a
// channel's messages in order), which is what a start's sent means.
//
// A start sent as a request (startBatch's other way) cost its caller the
// wait for the answer, read by go-client's connection goroutine and handed
// to the goroutine that sent it, then to the caller: two wake-ups on the
// way of every read, besides Neovim's answer and its decoding.
func (s *Session) notifyBatch(batch []*asyncStart) {
	// Traced as a start sent as a request is: a lone one as its function.
	var name string
	if len(batch) == 1 {
		name = batch[0].f.String() + "(#" + strconv.FormatInt(batch[0].id, 10) + ")"
	} else {
		fns := make([]string, len(batch))
		for i, st := range batch {
			fns[i] = "#" + strconv.FormatInt(st.id, 10) + " " + st.f.name
		}
		name = fmt.Sprintf("%s(%d: %s)", luaStartOps.f, len(batch), strings.Join(fns, ", "))
	}
	start := time.Now()
	s.roundTrips.Add(1) // the operations' answers come back: a round trip
	err := s.inSessionTerms(s.ep.Notify("nvim_exec_lua", startOpsCode, &startOps{channel: s.channel, batch: batch}))
	s.traceRPC(name, start, err)
	for _, st := range batch {
		st.sent <- err
	}
}

// startOpsCode calls async.start_ops (luaStartOps) with its arguments:
// Neovim compiles the code of every nvim_exec_lua, and callCode's, which
// takes the module and the function's names first, took it half as long
// again (1 us more of LuaJIT's parser and a select per read, on its way).
var startOpsCode = "return require('" + luaStartOps.f.module + "')." + luaStartOps.f.name + "(...)"

// startOps is the arguments of async.start_ops for a batch (startOpsCode),
// {channel, ops}, each op {module, name, id, count, args...} (the count,
// because a nil argument leaves a hole in the Lua table). It writes itself
// (msgpack.Marshaler): as nested []any, each member went through
// go-client's encoder of an interface, an allocation and a lookup each, a
// dozen per read.
type startOps struct {
	channel int
	batch   []*asyncStart
}

func (o *startOps) MarshalMsgPack(e *msgpack.Encoder) error {
	for _, err := range []error{
		e.PackArrayLen(2),
		e.PackInt(int64(o.channel)),
		e.PackArrayLen(int64(len(o.batch))),
	} {
		if err != nil {
			return err
		}
	}
	for _, st := range o.batch {
		for _, err := range []error{
			e.PackArrayLen(int64(4 + len(st.args))),
			e.PackString(st.f.module),
			e.PackString(st.f.name),
			e.PackInt(st.id),
			e.PackInt(int64(len(st.args))),
		} {
			if err != nil {
				return err
			}
		}
		for _, a := range st.args {
			if err := e.Encode(a); err != nil {
				return err
			}
		}
	}
	return nil
}
