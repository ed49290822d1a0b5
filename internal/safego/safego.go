// Package safego keeps a panic in one of nvbridge's goroutines (or in one
// tool call) from ending the process: the panic is recovered, its stack goes
// to the log (never into a tool result) and the caller gets a short
// OPERATION_FAILED error instead.
//
// Every goroutine nvbridge starts goes through Go (or recovers with Recover
// as its first deferred call): an answer from a language server or a client
// that trips a bug must cost one request, not the whole MCP session.
package safego

import (
	"fmt"
	"log"
	"runtime/debug"
	"sync/atomic"

	"github.com/nvbridge/nvbridge/apierr"
)

type logFunc = func(format string, args ...any)

var logger atomic.Pointer[logFunc]

// SetLogf sets where recovered panics are logged (with their stack). The
// default is the standard logger (stderr; never stdout, which stdio MCP owns).
func SetLogf(f func(format string, args ...any)) {
	if f == nil {
		logger.Store(nil)
		return
	}
	logger.Store(&f)
}

func logf(format string, args ...any) {
	if f := logger.Load(); f != nil {
		(*f)(format, args...)
		return
	}
	log.Printf(format, args...)
}

// Error converts a recovered panic value into the error a caller answers
// with, after logging it with stack (the stack of the panicking goroutine:
// call it from the deferred function that recovered).
func Error(what string, p any) *apierr.Error {
	logf("nvbridge: recovered panic in %s: %v\n%s", what, p, debug.Stack())
	return apierr.Errorf(apierr.OperationFailed,
		"this is a bug in nvbridge (the log holds the details); nvbridge keeps running, retry or report it with the arguments",
		"internal error in %s: %s", what, short(p))
}

// short renders a panic value on one line of bounded length.
func short(p any) string {
	s := fmt.Sprint(p)
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Recover, deferred, turns a panic of the current goroutine into an
// OPERATION_FAILED error stored in *err (when err is not nil).
//
//	defer safego.Recover("find_definition", &err)
func Recover(what string, err *error) {
	if p := recover(); p != nil {
		e := Error(what, p)
		if err != nil {
			*err = e
		}
	}
}

// Call runs fn and returns the panic it raised, if any, as an error.
func Call(what string, fn func()) (err error) {
	defer Recover(what, &err)
	fn()
	return nil
}

// Go runs fn in a new goroutine. A panic in fn is logged and, when onPanic
// is not nil, passed to it (in that goroutine) as an OPERATION_FAILED error.
func Go(what string, fn func(), onPanic func(error)) {
	go func() {
		if err := Call(what, fn); err != nil && onPanic != nil {
			onPanic(err)
		}
	}()
}
