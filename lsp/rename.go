package lsp

// A rename asked with its open, in one call to Neovim (read.lua): the
// rename and, where the server offers it, prepareRename beside it.

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/nvim"
)

// RenameAnswer is a rename asked at a position (RenameAtThen).
type RenameAnswer struct {
	Doc    *Document
	Server Server
	Point  Point
	// Rename is the answer to textDocument/rename, RenameErr its error
	// answer.
	Rename    json.RawMessage
	RenameErr error
	// Prepared: prepareRename was asked (the server offers it, and the
	// caller asked for it); Prepare is its answer, PrepareErr its error
	// answer.
	Prepared   bool
	Prepare    json.RawMessage
	PrepareErr error
}

// RenameThen is what a rename's caller starts before its answers
// (RenameAtThen), with the position asked and the file's path, resolved
// in this call (workspace.Root.Resolve, before the disk's line was read:
// what the caller reads of the file goes there, not resolved again);
// neither is called when the open and the requests go in steps from the
// start (the disk's line did not locate the target), and neither may
// block.
type RenameThen struct {
	// Located is called once the disk's line located the position, before
	// the call to Neovim: for what needs neither Neovim nor the answers
	// (the position may then be another, when the buffer's line is not the
	// disk's).
	Located func(pt Point, abs string)
	// Sent is called once the requests are on their way, while their
	// answers are awaited (a call to Neovim from Sent reaches it after the
	// open): for what needs Neovim but not the answers.
	Sent func(pt Point, abs string)
	// Snapshot, when not nil, asks Neovim for the file's snapshot in the
	// read's own call once the requests went, and is called once with it,
	// or nil when none was taken (see readRequest.snapshot); it must not
	// block.
	Snapshot func(*nvim.ReadSnapshot)
}

// RenameAtThen asks textDocument/rename at t in file to newName, and, with
// prepare, textDocument/prepareRename at the same position when the server
// offers it (without, the caller asks it when it needs its answer:
// PrepareRename): with the open, the wait for the servers and the target's
// line in one call to Neovim when the disk's line locates t (read), the
// two requests sent together. Neither answer is read for the other: the
// caller decides from prepareRename whether the rename's stands. An error
// is one of the open or the position (nothing was asked); an error answer
// of either request is in RenameErr or PrepareErr.
//
// then says what the caller starts before the answers (nil: nothing).
func (c *Client) RenameAtThen(ctx context.Context, file string, t Target, newName string, prepare bool, then *RenameThen) (RenameAnswer, error) {
	if then == nil {
		then = &RenameThen{}
	}
	var also, known []string
	if prepare {
		also = []string{protocol.MethodTextDocumentPrepareRename}
	} else {
		// Not sent, but whether the server offers it, for PrepareRename.
		known = []string{protocol.MethodTextDocumentPrepareRename}
	}
	a, err := c.read(ctx, file, t, readRequest{
		method: protocol.MethodTextDocumentRename,
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.RenameParams{TextDocumentPositionParams: at, NewName: newName}
		},
		also:     also,
		known:    known,
		sent:     then.Sent,
		located:  then.Located,
		snapshot: then.Snapshot,
	})
	if a.pos.doc == nil {
		return RenameAnswer{}, err
	}
	out := RenameAnswer{Doc: a.pos.doc, Server: a.pos.server, Point: a.pos.point, Rename: a.raw, RenameErr: err}
	if !prepare || !out.Server.Supports(protocol.MethodTextDocumentPrepareRename) {
		return out, nil
	}
	out.Prepared = true
	if len(a.also) == 1 {
		out.Prepare, out.PrepareErr = a.also[0].raw, a.also[0].err
		return out, nil
	}
	// Not sent with the rename (the call went on as resolve does): asked
	// now.
	out.Prepare, out.PrepareErr = c.PrepareRename(ctx, out)
	return out, nil
}

// PrepareRename asks textDocument/prepareRename where a (a rename asked
// without it) was asked: its answer, or its error answer.
func (c *Client) PrepareRename(ctx context.Context, a RenameAnswer) (json.RawMessage, error) {
	var raw json.RawMessage
	pos := position{doc: a.Doc, server: a.Server, point: a.Point}
	err := c.Request(ctx, a.Doc, a.Server, protocol.MethodTextDocumentPrepareRename, pos.params(), &raw)
	return raw, err
}
