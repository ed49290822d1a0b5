package lsp

// A read tool's call in one round trip to Neovim (read.lua): the open and
// reconcile, the wait for the servers, the request at the target and the
// source lines of the locations the answer names. Three round trips each
// cost a position tool about a tenth of a millisecond and Neovim's work
// per message; a read is mostly those.
//
// The target is located on the line as the disk holds it (the buffer of
// an unmodified file holds the same once reconciled), converted here, by
// preview's columns, to the character of every offset encoding; Neovim
// checks the buffer's line is that text and picks the encoding of the
// server that answers. Whatever the guess did not foresee (a buffer with
// unsaved changes on that line, no server for the method, a server that
// has not analysed the file yet, a target that does not locate on the
// disk's line) goes on as resolve does, from what the call answered: the
// errors and waits are resolve's, decided on the buffer's text.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// readRequest is a position tool's request, made with its open.
type readRequest struct {
	method string
	// hint is the remediation when no server offers method.
	hint string
	// params are the request's parameters at a position.
	params func(at protocol.TextDocumentPositionParams) any
	// block is how many source lines each location of the answer needs
	// from its start (0: the answer names no locations to show).
	block int
	// also are methods asked at the same position through the same server
	// (hover's: where the symbol is declared).
	also []string
	// chain are methods asked once the answer came, with its first item
	// ({"item": item}), through the same server where it offers them: a
	// call hierarchy's first level, in the same call to Neovim.
	chain []string
	// known are methods not sent whose support the answer tells
	// (Server.Supports): the caller may ask them after.
	known []string
	// sent, when not nil, is called with the position and the file's
	// path (resolved by the read: see located) once Neovim has opened the
	// file and sent the request (nvim.Session.ReadThen), while the answer
	// is awaited; not called when the read goes in steps (readSlow).
	sent func(pt Point, abs string)
	// located, when not nil, is called with the position once the disk's
	// line located it, before the call to Neovim (for what needs neither
	// Neovim nor the answer), and the file's path as the read resolved it
	// (workspace.Root.Resolve, in this call: the caller reads the file
	// there rather than resolving it again, an openat2 and a close); not
	// called when the read goes in steps from the start.
	located func(pt Point, abs string)
	// snapshot, when not nil, asks Neovim for the file's snapshot in the
	// read's call once the request went (nvim.Session.ReadSnapshotThen),
	// and is called once with it, or with nil when none was taken (the
	// read went in steps, nothing was sent, Lua could not take it): it
	// must not block.
	snapshot func(*nvim.ReadSnapshot)
}

// readAnswer is what a read found: the position asked (its doc nil when
// none was: the file did not open, the target did not locate), the answer
// to the method (an error answer is read's error, with the position), the
// answers to also and to chain, by method (nil: not asked with it; the
// caller asks them itself), and the lines of the loaded buffers the
// answers name, by path (nil: not read; Lines reads them).
type readAnswer struct {
	pos     position
	raw     json.RawMessage
	also    []alsoAnswer
	chained map[string]alsoAnswer
	texts   map[string]map[int]string
}

// alsoAnswer is the answer to one of a readRequest's also methods.
type alsoAnswer struct {
	raw json.RawMessage
	err error
}

// readReply is read.lua's answer.
type readReply struct {
	openWaitReply
	// Client is the server asked (0: nothing was sent; Unsent says why).
	Client  int                          `json:"client"`
	Unsent  string                       `json:"unsent"`
	Answers []readAnswerWire             `json:"answers"`
	Chained []readAnswerWire             `json:"chained"`
	Lines   map[string]map[string]string `json:"lines"`
}

// readyNames are the servers that answer about a file once it is open
// (lang.ServerSpec.AnswersAfterOpen): awaitAnalysis does not wait for
// them.
var readyNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, s := range lang.ServerSpecs() {
		if lang.AnswersAfterOpen(s.Name) {
			out[s.Name] = true
		}
	}
	return out
})

// read makes req at t in file: in one call to Neovim when the disk's line
// locates t, else (and wherever the call could not send it) as resolve
// and Request do.
func (c *Client) read(ctx context.Context, file string, t Target, req readRequest) (readAnswer, error) {
	if got := req.snapshot; got != nil {
		// Called once whatever the way: nil when the read took none.
		var once sync.Once
		req.snapshot = func(r *nvim.ReadSnapshot) { once.Do(func() { got(r) }) }
		defer req.snapshot(nil)
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	root := c.Session.Root()
	abs, err := root.Resolve(file)
	if err != nil {
		return readAnswer{}, err
	}
	var text string
	var found bool
	if t.Line >= 1 {
		text, found = diskLines(abs, []int{t.Line - 1})[t.Line-1]
	}
	if !found {
		return c.readSlow(ctx, file, t, req)
	}
	pt, err := locateOn(&Document{Rel: root.Rel(abs)}, t, text)
	if err != nil {
		// The error is the buffer's to give: it may hold another text.
		return c.readSlow(ctx, file, t, req)
	}
	if req.located != nil {
		req.located(pt, abs)
	}
	fileURI := uri.File(abs)
	params, paramsAt, bare, err := readParams(req.params(protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: fileURI},
		Position:     protocol.Position{Line: uint32(pt.Line)},
	}), pt.Line)
	if err != nil {
		return readAnswer{}, err
	}
	character, positions := positionsOf(text, pt.Byte)
	spec := nvim.ReadSpec{
		Path: abs, Line: pt.Line, Text: text, Positions: positions, Character: character,
		Method: req.method, Params: params, ParamsAt: paramsAt, ParamsBare: bare, Also: req.also, Chain: req.chain, Block: req.block,
		Methods: beyondNavigation(req.method, req.also, req.chain, req.known), GraceMs: int(c.AttachGrace / time.Millisecond),
		ReadyNames: readyNames(), Analysed: c.analysedKeys(abs),
	}
	var sent func()
	if req.sent != nil {
		sent = func() { req.sent(pt, abs) }
	}
	var raw json.RawMessage
	if req.snapshot != nil {
		raw, err = c.Session.ReadSnapshotThen(ctx, spec, sent, req.snapshot)
	} else {
		raw, err = c.Session.ReadThen(ctx, spec, sent)
	}
	if err != nil {
		return readAnswer{}, c.relativeMessage(err)
	}
	var reply readReply
	if err := decodeReadReply(raw, &reply, &c.readClients); err != nil {
		return readAnswer{}, fmt.Errorf("decode read: %w", err)
	}
	doc := c.documentOf(abs, reply.openWaitReply)
	if reply.Client == 0 {
		pos, err := c.positionIn(ctx, doc, reply.Line, t, req.method, req.hint)
		if err != nil {
			return readAnswer{}, err
		}
		var raw json.RawMessage
		err = c.Request(ctx, doc, pos.server, req.method, req.params(pos.params()), &raw)
		return readAnswer{pos: pos, raw: raw}, err
	}
	var server Server
	for _, s := range doc.Servers {
		if s.ID == reply.Client {
			server = s
		}
	}
	if server.ID == 0 || len(reply.Answers) == 0 {
		return readAnswer{}, fmt.Errorf("read: the answer names client %d of %d and has %d answers", reply.Client, len(doc.Servers), len(reply.Answers))
	}
	out := readAnswer{pos: position{doc: doc, server: server, point: pt}, raw: reply.Answers[0].Result}
	// The also methods were sent where the server offers them, in order
	// (read beside an error answer to the method: a rename's prepareRename
	// says why the position cannot be renamed).
	next := 1
	for _, m := range req.also {
		if !server.Supports(m) {
			out.also = nil
			break
		}
		if next >= len(reply.Answers) {
			return readAnswer{}, fmt.Errorf("read: %d answers for %d requests", len(reply.Answers), 1+len(req.also))
		}
		a := reply.Answers[next]
		next++
		if a.Err != nil {
			out.also = append(out.also, alsoAnswer{err: a.Err.APIError()})
		} else {
			out.also = append(out.also, alsoAnswer{raw: a.Result})
		}
	}
	if e := reply.Answers[0].Err; e != nil {
		return out, e.APIError()
	}
	// The chain was sent where the server offers it, in order, when the
	// answer listed an item.
	if reply.Chained != nil {
		out.chained = make(map[string]alsoAnswer, len(reply.Chained))
		next := 0
		for _, m := range req.chain {
			if !server.Supports(m) {
				continue
			}
			if next >= len(reply.Chained) {
				return readAnswer{}, fmt.Errorf("read: %d chained answers for %d requests", len(reply.Chained), len(req.chain))
			}
			a := reply.Chained[next]
			next++
			if a.Err != nil {
				out.chained[m] = alsoAnswer{err: a.Err.APIError()}
			} else {
				out.chained[m] = alsoAnswer{raw: a.Result}
			}
		}
	}
	if req.block > 0 || reply.Chained != nil {
		// Sensitive files' lines are dropped here, as Lines never reads
		// them: results show where, never what.
		out.texts = make(map[string]map[int]string, len(reply.Lines))
		for u, lines := range reply.Lines {
			p := PathOf(protocol.DocumentURI(u))
			if p == "" || root.Sensitive(p) {
				continue
			}
			m := make(map[int]string, len(lines))
			for k, text := range lines {
				if n, err := strconv.Atoi(k); err == nil {
					m[n] = text
				}
			}
			out.texts[p] = m
		}
	}
	return out, nil
}

// beyondNavigation are method and the methods of lists that are not
// navigationMethods (nvim.ReadSpec.Methods: read.lua describes the servers
// with the navigation methods, which it has as status.navigation_methods,
// and these); nil when there are none, as for a definition, a hover or
// references.
func beyondNavigation(method string, lists ...[]string) []string {
	var out []string
	add := func(m string) {
		if !slices.Contains(navigationMethods, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	add(method)
	for _, l := range lists {
		for _, m := range l {
			add(m)
		}
	}
	return out
}

// positionsOf is the character of byte b of line in each offset encoding
// (nvim.ReadSpec.Positions), or, when it is the same in all three (ASCII
// up to b: most lines of code), that character alone and no map: a map of
// three to build, send and make a Lua table of on every read.
func positionsOf(line string, b int) (int, map[string]int) {
	u8 := preview.ByteToUnits(line, b, preview.UTF8)
	u16 := preview.ByteToUnits(line, b, preview.UTF16)
	u32 := preview.ByteToUnits(line, b, preview.UTF32)
	if u8 == u16 && u8 == u32 {
		return u8, nil
	}
	return u8, map[string]int{string(preview.UTF8): u8, string(preview.UTF16): u16, string(preview.UTF32): u32}
}

// readParams is params (a read's, at line, its character 0) as
// json.Marshal writes them, and where the character stands
// (nvim.ReadSpec.ParamsAt), and whether they are a
// TextDocumentPositionParams' text (nvim.ReadSpec.ParamsBare). A
// definition's, a hover's, references' and a rename's params with a URI
// (and a new name) JSON writes as it is are written here: encoding/json
// took 0.9 us (hot, 6
// allocations) of a read's way for what is a few appends
// (TestReadParamsAsMarshal holds them to the same text).
func readParams(params any, line int) (string, int, bool, error) {
	var at protocol.TextDocumentPositionParams
	var refs *protocol.ReferenceContext
	var newName *string
	plain := false
	switch p := params.(type) {
	case protocol.DefinitionParams:
		at, plain = p.TextDocumentPositionParams, p.WorkDoneToken == nil && p.PartialResultToken == nil
	case protocol.HoverParams:
		at, plain = p.TextDocumentPositionParams, p.WorkDoneToken == nil
	case protocol.ReferenceParams:
		at, plain = p.TextDocumentPositionParams, p.WorkDoneToken == nil && p.PartialResultToken == nil
		refs = &p.Context
	case protocol.RenameParams:
		at, plain = p.TextDocumentPositionParams, p.PartialResultToken == nil && jsonAsIs(p.NewName)
		newName = &p.NewName
	}
	if plain && at.Position.Character == 0 && int64(at.Position.Line) == int64(line) && jsonAsIs(string(at.TextDocument.URI)) {
		var b strings.Builder
		b.Grow(96 + len(at.TextDocument.URI))
		b.WriteString(`{"textDocument":{"uri":"`)
		b.WriteString(string(at.TextDocument.URI))
		b.WriteString(`"},"position":{"line":`)
		b.WriteString(strconv.Itoa(line))
		b.WriteString(`,"character":`)
		n := b.Len()
		b.WriteString(`0}`)
		if refs != nil {
			b.WriteString(`,"context":{"includeDeclaration":` + strconv.FormatBool(refs.IncludeDeclaration) + `}`)
		}
		if newName != nil {
			b.WriteString(`,"newName":"`)
			b.WriteString(*newName)
			b.WriteByte('"')
		}
		b.WriteByte('}')
		return b.String(), n, refs == nil && newName == nil, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return "", 0, false, err
	}
	return string(raw), characterAt(raw, line), false, nil
}

// jsonAsIs reports whether json.Marshal writes s as it is between quotes:
// printable ASCII but for the quote, the backslash and the characters it
// escapes for HTML (<, >, &).
func jsonAsIs(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// characterAt is where params (as json.Marshal wrote them, the position's
// character 0) hold that 0: the index of its byte (nvim.ReadSpec.ParamsAt),
// or 0 when the position is not written once as expected (read.lua then
// decodes params and sets it). A match is the position object itself: in
// a JSON string every quote is escaped, so the text cannot occur in one.
func characterAt(params []byte, line int) int {
	needle := `"position":{"line":` + strconv.Itoa(line) + `,"character":0}`
	i := strings.Index(string(params), needle)
	if i < 0 || strings.LastIndex(string(params), needle) != i {
		return 0
	}
	return i + len(needle) - 2
}

// readSlow is read as resolve and Request make it: the open, then the
// request.
func (c *Client) readSlow(ctx context.Context, file string, t Target, req readRequest) (readAnswer, error) {
	pos, err := c.resolveAlso(ctx, file, t, req.method, req.hint, slices.Concat(req.also, req.known))
	if err != nil {
		return readAnswer{}, err
	}
	var raw json.RawMessage
	err = c.Request(ctx, pos.doc, pos.server, req.method, req.params(pos.params()), &raw)
	return readAnswer{pos: pos, raw: raw}, err
}

// analysedKeys are the servers awaitAnalysis has waited for on abs's
// buffer, as read.lua names them ("bufnr:client"): read.lua looks up the
// read's own buffer only, so the other buffers' (a session that has opened
// hundreds of files has as many) are not encoded and decoded on every
// read. The buffer is the one the last open of abs answered; none known
// yet (the file was never opened), nothing is known analysed. Built when
// analysed changes, not per read; the maps are shared: read, never
// written.
func (c *Client) analysedKeys(abs string) map[string]bool {
	c.analysedMu.Lock()
	defer c.analysedMu.Unlock()
	bufnr, ok := c.bufOf[abs]
	if !ok {
		return noneAnalysed
	}
	if m, ok := c.analysedNames[bufnr]; ok {
		return m
	}
	out := map[string]bool{}
	for k := range c.analysed {
		if k.bufnr == bufnr {
			out[strconv.Itoa(k.bufnr)+":"+strconv.Itoa(k.client)] = true
		}
	}
	if c.analysedNames == nil {
		c.analysedNames = map[int]map[string]bool{}
	}
	c.analysedNames[bufnr] = out
	return out
}

// noneAnalysed is analysedKeys for a file of no known buffer: an empty
// map (nil would be nil to read.lua, not a table), never written.
var noneAnalysed = map[string]bool{}

// relativeMessage makes the paths of an error's message the workspace's,
// as tools speak.
func (c *Client) relativeMessage(err error) error {
	if ae, ok := err.(*apierr.Error); ok {
		e := *ae
		e.Message = strings.ReplaceAll(e.Message, c.Session.Root().Dir()+string(filepath.Separator), "")
		return &e
	}
	return err
}
