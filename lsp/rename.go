package lsp

// A rename asked with its open, in one call to Neovim (read.lua): the
// rename and, where the server offers it, prepareRename beside it.

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"
)

// RenameAnswer is a rename asked at a position (RenameAt).
type RenameAnswer struct {
	Doc    *Document
	Server Server
	Point  Point
	// Rename is the answer to textDocument/rename, RenameErr its error
	// answer.
	Rename    json.RawMessage
	RenameErr error
	// Prepared: prepareRename was asked (the server offers it); Prepare is
	// its answer, PrepareErr its error answer.
	Prepared   bool
	Prepare    json.RawMessage
	PrepareErr error
}

// RenameAt asks textDocument/rename at t in file to newName, and
// textDocument/prepareRename at the same position when the server offers
// it: with the open, the wait for the servers and the target's line in
// one call to Neovim when the disk's line locates t (read), the two
// requests sent together. Neither answer is read for the other: the
// caller decides from prepareRename whether the rename's stands. An error
// is one of the open or the position (nothing was asked); an error answer
// of either request is in RenameErr or PrepareErr.
func (c *Client) RenameAt(ctx context.Context, file string, t Target, newName string) (RenameAnswer, error) {
	a, err := c.read(ctx, file, t, readRequest{
		method: protocol.MethodTextDocumentRename,
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.RenameParams{TextDocumentPositionParams: at, NewName: newName}
		},
		also: []string{protocol.MethodTextDocumentPrepareRename},
	})
	if a.pos.doc == nil {
		return RenameAnswer{}, err
	}
	out := RenameAnswer{Doc: a.pos.doc, Server: a.pos.server, Point: a.pos.point, Rename: a.raw, RenameErr: err}
	if !out.Server.Supports(protocol.MethodTextDocumentPrepareRename) {
		return out, nil
	}
	out.Prepared = true
	if len(a.also) == 1 {
		out.Prepare, out.PrepareErr = a.also[0].raw, a.also[0].err
		return out, nil
	}
	// Not sent with the rename (the call went on as resolve does): asked
	// now.
	out.PrepareErr = c.Request(ctx, out.Doc, out.Server, protocol.MethodTextDocumentPrepareRename, a.pos.params(), &out.Prepare)
	return out, nil
}
