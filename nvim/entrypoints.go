package nvim

import (
	"context"
	"encoding/json"
	"strconv"
)

// Every Lua function Go calls, declared once (see lua.go), and the Session
// method that calls it. Arguments whose types belong to a layer above nvim
// (an edit plan, a syntax source) are passed as any, and so are results
// whose types live there: the method decodes into what its caller gives.
// Module by module, in the order of lua/nvbridge.

// async.lua: the asynchronous operations.
var (
	luaStartOps = fn2[int, []any]("nvbridge.async", "start_ops")
	luaCancel   = async0("nvbridge.async", "cancel")
	luaRequest  = async4[int, int, string, string]("nvbridge.async", "request")
)

func init() {
	luaRequest.f.trace = func(args []any) (string, string) {
		// request(bufnr, client_id, method, params): an LSP request.
		params, _ := args[3].(string)
		if head, cut := traceHead(params); cut {
			params = head + "…"
		}
		return "lsp", "→ " + args[2].(string) + " " + params + " (client " + strconv.Itoa(args[1].(int)) +
			", buffer " + strconv.Itoa(args[0].(int)) + ")"
	}
}

// LSPRequest sends method with params (JSON) through client clientID of
// buffer bufnr (0: the first attached client that supports method) and
// returns the server's bare result as JSON.
func (s *Session) LSPRequest(ctx context.Context, bufnr, clientID int, method, params string) (json.RawMessage, error) {
	return luaRequest.start(ctx, s, bufnr, clientID, method, params)
}

// wait.lua: waiting on the servers; status.lua: what they are.
var (
	luaOpenWait        = async5[string, bool, int, int, any]("nvbridge.wait", "open_wait")
	luaWaitDiagnostics = async3[int, []int, int]("nvbridge.wait", "wait_diagnostics")
	luaClientsStatus   = fn0("nvbridge.status", "clients_status")
	luaDiagnostics     = fn1[any]("nvbridge.status", "diagnostics")
)

// OpenWait opens path (reconciled with the disk), waits for its language
// servers to be ready (graceMs for one to attach when none is expected)
// and answers JSON {buffer, clients, line}: the line's text when line >=
// 0, each client with the methods it supports of methods ([]string; nil:
// every method).
func (s *Session) OpenWait(ctx context.Context, path string, mustExist bool, line, graceMs int, methods any) (json.RawMessage, error) {
	return luaOpenWait.start(ctx, s, path, mustExist, line, graceMs, methods)
}

// WaitDiagnostics waits, at most boundMs, until every client of clientIDs
// has published diagnostics for bufnr's current text: JSON true, or false
// when the bound ran out.
func (s *Session) WaitDiagnostics(ctx context.Context, bufnr int, clientIDs []int, boundMs int) (json.RawMessage, error) {
	return luaWaitDiagnostics.start(ctx, s, bufnr, clientIDs, boundMs)
}

// ClientsStatus reads every language server client's state and the
// servers that went down, as JSON.
func (s *Session) ClientsStatus(ctx context.Context, result *string) error {
	return luaClientsStatus.call(ctx, s, result)
}

// Diagnostics reads the diagnostics Neovim holds for buffer bufnr (nil:
// every loaded buffer), as JSON.
func (s *Session) Diagnostics(ctx context.Context, result *string, bufnr any) error {
	return luaDiagnostics.call(ctx, s, result, bufnr)
}

// read.lua: a read tool's open, request and lines in one call.
var luaRead = async1[ReadSpec]("nvbridge.read", "read")

func init() {
	luaRead.f.trace = func(args []any) (string, string) {
		spec := args[0].(ReadSpec)
		return "lsp", "→ " + spec.Method + " " + spec.Path + ":" + strconv.Itoa(spec.Line+1) + " (open, request, lines)"
	}
}

// ReadSpec is one read in one call (read.lua): open Path (reconciled with
// the disk), wait for its servers, and when 0-based Line holds Text, send
// Method through the first ready server that offers it and has analysed
// the file (ReadyNames: servers that answer once the file is open;
// Analysed: "bufnr:client" pairs known to have), at Positions (the
// character of the target in each offset encoding; none when it is
// Character in all three, as on a line of ASCII up to it), with Params
// (JSON, the position set there), and Also at the same position when that
// server offers them, and once it answered with a list, Chain with
// {"item": its first item} where that server offers them; then read Block lines from
// each location the answer names (0: none), and the lines of the item and
// of the entries and call sites the chained answers name, of the loaded
// buffers. ParamsAt, when not 0, is the byte of Params (0-based) that is
// the position's character, a 0 in its place: read.lua writes the
// request with the chosen character there, without decoding Params or
// encoding the request; ParamsBare: Params are a
// TextDocumentPositionParams' (what the Also requests take, sent with the
// same text). The reply describes the servers with the methods
// they offer of the navigation ones (status.lua's navigation_methods, which
// are lsp's) and of Methods (the others the caller may use: nil for most
// reads, the list sent with each read cost more than the rest of it).
type ReadSpec struct {
	Path       string          `msgpack:"path"`
	Line       int             `msgpack:"line"`
	Text       string          `msgpack:"text"`
	Positions  map[string]int  `msgpack:"positions,omitempty"`
	Character  int             `msgpack:"character"`
	Method     string          `msgpack:"method"`
	Params     string          `msgpack:"params"`
	ParamsAt   int             `msgpack:"params_at"`
	ParamsBare bool            `msgpack:"params_bare"`
	Also       []string        `msgpack:"also,omitempty"`
	Chain      []string        `msgpack:"chain,omitempty"`
	Block      int             `msgpack:"block"`
	Methods    []string        `msgpack:"methods"`
	GraceMs    int             `msgpack:"grace_ms"`
	ReadyNames map[string]bool `msgpack:"ready_names"`
	Analysed   map[string]bool `msgpack:"analysed"`
	// Snapshot, when set (ReadSnapshotThen), asks snapshot.files of Path
	// with these options once the request went, sent with
	// nvbridge_snapshot.
	Snapshot *SnapshotOptions `msgpack:"snapshot,omitempty"`
}

// Read runs spec (read.lua): JSON {buffer, clients, line, client, answers,
// lines}, or without client, answers and lines and with unsent (why
// nothing was sent) when the read's assumptions did not hold.
func (s *Session) Read(ctx context.Context, spec ReadSpec) (json.RawMessage, error) {
	return luaRead.start(ctx, s, spec)
}

// ReadThen is Read, calling sent once Neovim has run the read's first
// part (the open, and the requests when the servers were ready) and the
// answer is awaited, or with the answer when it came first: a call made
// from sent reaches Neovim after that part. sent must not block.
func (s *Session) ReadThen(ctx context.Context, spec ReadSpec, sent func()) (json.RawMessage, error) {
	return s.startThen(ctx, luaRead.f, sent, spec)
}

// buffers.lua: loading files; read.lua: reading lines as the servers see
// them.
var (
	luaOpen     = fn2[string, bool]("nvbridge.buffers", "open")
	luaGetLines = fn1[map[string][]int]("nvbridge.read", "get_lines")
)

// LoadedLines reads the wanted lines (0-based, by absolute path) of the
// files loaded in buffers, as JSON {path: {"line": text}}; files not
// loaded are left out.
func (s *Session) LoadedLines(ctx context.Context, result *string, wanted map[string][]int) error {
	return luaGetLines.call(ctx, s, result, wanted)
}

// Changesets: snapshot.lua (what a change is planned on), apply.lua (into
// buffers), undo_log.lua (taking a change back), write.lua (the disk).
var (
	luaSnapshot    = fn2[[]string, SnapshotOptions]("nvbridge.snapshot", "files")
	luaApply       = fn1[any]("nvbridge.apply", "apply")
	luaUndo        = fn1[string]("nvbridge.undo_log", "undo")
	luaSave        = fn4[string, any, string, any]("nvbridge.write", "save")
	luaSavePreview = fn3[string, any, any]("nvbridge.write", "preview")
	luaDiscard     = fn2[string, bool]("nvbridge.apply", "discard")
	luaFollowDisk  = fn2[[]string, string]("nvbridge.write", "follow_disk")
	luaUndoChanges = fn1[any]("nvbridge.changes", "undo_changeset")
	luaUndoPreview = fn2[any, any]("nvbridge.changes", "undo_preview")
	luaRevertAll   = fn1[bool]("nvbridge.changes", "revert_all")
)

// ApplyPlan applies a changeset's plan to the buffers (and, with save, the
// disk) atomically.
func (s *Session) ApplyPlan(ctx context.Context, result any, plan any) error {
	return luaApply.call(ctx, s, result, plan)
}

// UndoBuffer takes back the last nvbridge change in the buffer of path.
func (s *Session) UndoBuffer(ctx context.Context, result any, path string) error {
	return luaUndo.call(ctx, s, result, path)
}

// SaveBuffer writes the buffer of path through commit id, confined by
// guard; opts (write.lua's nvbridge.SaveOptions): force overwrites a file
// changed on disk, noautocmd skips the user's write autocmds, ours_only
// refuses the user's unsaved changes, expect is the fingerprint of the
// bytes the user approved.
func (s *Session) SaveBuffer(ctx context.Context, result any, path string, guard any, id string, opts any) error {
	return luaSave.call(ctx, s, result, path, guard, id, opts)
}

// SavePreview says what saving the buffer of path would write (the user's
// write autocmds run and are undone), checked as the save checks it.
func (s *Session) SavePreview(ctx context.Context, result any, path string, guard any, opts any) error {
	return luaSavePreview.call(ctx, s, result, path, guard, opts)
}

// DiscardBuffer puts the buffer of path back to the file on disk.
func (s *Session) DiscardBuffer(ctx context.Context, result any, path string, force bool) error {
	return luaDiscard.call(ctx, s, result, path, force)
}

// FollowDisk takes the buffers of paths as written where they hold what
// their files now hold (after a commit was settled by recovery).
func (s *Session) FollowDisk(ctx context.Context, paths []string, root string) error {
	return luaFollowDisk.call(ctx, s, nil, paths, root)
}

// UndoChangeset undoes a whole applied changeset (id; nil: the last one)
// in every buffer it changed.
func (s *Session) UndoChangeset(ctx context.Context, result any, id any) error {
	return luaUndoChanges.call(ctx, s, result, id)
}

// format.lua: the user's own formatter (conform.nvim, when loaded).
var (
	luaUserFormatters = fn1[int]("nvbridge.format", "user_formatters")
	luaConformText    = async2[int, []string]("nvbridge.format", "conform_text")
)

// UserFormatters reads the formatters the user's conform.nvim runs for
// bufnr, as JSON {tool, formatters}; "" when none (or not loaded).
func (s *Session) UserFormatters(ctx context.Context, result *string, bufnr int) error {
	return luaUserFormatters.call(ctx, s, result, bufnr)
}

// ConformText formats bufnr's text with the named conform.nvim formatters
// without changing the buffer: JSON {lines}.
func (s *Session) ConformText(ctx context.Context, bufnr int, names []string) (json.RawMessage, error) {
	return luaConformText.start(ctx, s, bufnr, names)
}

// UndoPreview says what an undo would revert, checked as the undo checks
// it: of the buffer of path (a string), or of changeset id (nil path; nil
// id: the last one). Nothing changes.
func (s *Session) UndoPreview(ctx context.Context, result any, path, id any) error {
	return luaUndoPreview.call(ctx, s, result, path, id)
}

// RevertAll undoes every changeset agents applied in this Neovim that the
// user has not edited after, newest first; dry only says what it would
// undo, with the files' texts.
func (s *Session) RevertAll(ctx context.Context, result any, dry bool) error {
	return luaRevertAll.call(ctx, s, result, dry)
}

// verify.lua: what a verified change waits for.
var (
	luaWaitSettled   = async2[any, int]("nvbridge.verify", "wait_settled")
	luaPublishMark   = fn0("nvbridge.verify", "mark")
	luaServerBuffers = fn1[[]string]("nvbridge.verify", "buffers")
	luaDependants    = fn2[[]int, []int]("nvbridge.verify", "dependants")
	luaOpenFiles     = fn1[string]("nvbridge.verify", "open_files")
	luaSetText       = fn2[int, string]("nvbridge.verify", "set_text")
	luaHold          = fn1[bool]("nvbridge.verify", "hold")
	luaReload        = fn1[int]("nvbridge.verify", "reload")
	luaPull          = async2[int, []string]("nvbridge.verify", "pull")
)

// PullDiagnostics asks client clientID for the diagnostics of paths
// (textDocument/diagnostic) after sending it every pending change: JSON
// {supported, files: {path: [diagnostic]}, failed: {path: message}}.
func (s *Session) PullDiagnostics(ctx context.Context, clientID int, paths []string) (json.RawMessage, error) {
	return luaPull.start(ctx, s, clientID, paths)
}

// WaitSettled waits, at most boundMs, until the servers have diagnosed a
// change (spec: {mark, touched, dependants, clients}): JSON {complete,
// pending}.
func (s *Session) WaitSettled(ctx context.Context, spec any, boundMs int) (json.RawMessage, error) {
	return luaWaitSettled.start(ctx, s, spec, boundMs)
}

// PublishMark reads the number of the last diagnostics publish (a wait
// counts the publishes after it).
func (s *Session) PublishMark(ctx context.Context, result *int) error {
	return luaPublishMark.call(ctx, s, result)
}

// ServerBuffers reads the loaded buffers of paths and the servers attached
// to them, as JSON {bufnrs, clients}.
func (s *Session) ServerBuffers(ctx context.Context, result *string, paths []string) error {
	return luaServerBuffers.call(ctx, s, result, paths)
}

// Dependants lists the loaded buffers attached to any of clientIDs, except
// the buffers except, as JSON [{bufnr, file}].
func (s *Session) Dependants(ctx context.Context, result *string, clientIDs, except []int) error {
	return luaDependants.call(ctx, s, result, clientIDs, except)
}

// OpenFiles reads the loaded buffers under root with their texts, as JSON
// [{file, text, modified}].
func (s *Session) OpenFiles(ctx context.Context, result *string, root string) error {
	return luaOpenFiles.call(ctx, s, result, root)
}

// SetText replaces buffer bufnr's whole text (a check's own Neovim only)
// and reads its new changedtick.
func (s *Session) SetText(ctx context.Context, result *int, bufnr int, text string) error {
	return luaSetText.call(ctx, s, result, bufnr, text)
}

// HoldBuffers keeps (on) the buffers loaded from now on until let go (off):
// a check's own Neovim only.
func (s *Session) HoldBuffers(ctx context.Context, on bool) error {
	return luaHold.call(ctx, s, nil, on)
}

// ReloadBuffer reloads buffer bufnr from the disk, dropping its changes (a
// check's own Neovim only).
func (s *Session) ReloadBuffer(ctx context.Context, bufnr int) error {
	return luaReload.call(ctx, s, nil, bufnr)
}

// structure.lua: imports read with tree-sitter.
var (
	luaTSSupports      = fn2[string, string]("nvbridge.structure", "supports")
	luaTSImports       = fn4[int, string, string, string]("nvbridge.structure", "imports")
	luaTSImportsOfFile = fn3[[]string, string, string]("nvbridge.structure", "imports_of_files")
)

// TreeSitterSupports reports whether Neovim has the parser of tree-sitter
// language lang and query parses for it.
func (s *Session) TreeSitterSupports(ctx context.Context, result *bool, lang, query string) error {
	return luaTSSupports.call(ctx, s, result, lang, query)
}

// TreeSitterImports reads the imports of buffer bufnr (0: of the file path
// on disk) with query, as JSON.
func (s *Session) TreeSitterImports(ctx context.Context, result *string, bufnr int, path, lang, query string) error {
	return luaTSImports.call(ctx, s, result, bufnr, path, lang, query)
}

// TreeSitterImportsOfFiles reads the imports of files on disk with query,
// as JSON {path: imports}.
func (s *Session) TreeSitterImportsOfFiles(ctx context.Context, result *string, paths []string, lang, query string) error {
	return luaTSImportsOfFile.call(ctx, s, result, paths, lang, query)
}

// navigation.lua.
var luaWorkspaceClients = fn1[string]("nvbridge.navigation", "workspace_clients")

// WorkspaceClients lists the running clients that support method ("":
// any), each with a buffer it is attached to, as JSON.
func (s *Session) WorkspaceClients(ctx context.Context, result *string, method string) error {
	return luaWorkspaceClients.call(ctx, s, result, method)
}

// actions.lua: code actions and the edits servers push.
var (
	luaActionDiagnostics = fn4[int, int, int, int]("nvbridge.actions", "diagnostics")
	luaCapabilities      = fn1[int]("nvbridge.actions", "capabilities")
	luaBeginCapture      = fn2[int, int]("nvbridge.actions", "begin_capture")
	luaEndCapture        = fn1[int]("nvbridge.actions", "end_capture")
)

// ActionDiagnostics reads client clientID's diagnostics on lines [first,
// last] of buffer bufnr as LSP Diagnostic objects (JSON), for a code
// action request's context.
func (s *Session) ActionDiagnostics(ctx context.Context, result *string, bufnr, clientID, first, last int) error {
	return luaActionDiagnostics.call(ctx, s, result, bufnr, clientID, first, last)
}

// ActionCapabilities reads what client clientID offers for code actions
// and commands, as JSON.
func (s *Session) ActionCapabilities(ctx context.Context, result *string, clientID int) error {
	return luaCapabilities.call(ctx, s, result, clientID)
}

// BeginCapture starts recording the edits client clientID pushes while a
// command runs (restored after boundMs at the latest); the result holds
// the capture's token.
func (s *Session) BeginCapture(ctx context.Context, result any, clientID, boundMs int) error {
	return luaBeginCapture.call(ctx, s, result, clientID, boundMs)
}

// EndCapture stops capture token and reads what it recorded, as JSON.
func (s *Session) EndCapture(ctx context.Context, result *string, token int) error {
	return luaEndCapture.call(ctx, s, result, token)
}

// The user's side of an attached Neovim: agents.lua (the agents and their
// calls), user.lua (settings), review.lua (approvals).
var (
	luaRegister      = fn2[int, string]("nvbridge.agents", "register")
	luaToolPre       = fn4[int, string, string, bool]("nvbridge.agents", "tool_pre")
	luaToolPost      = fn4[int, string, bool, string]("nvbridge.agents", "tool_post")
	luaApproveMode   = fn0("nvbridge.user", "approve_mode")
	luaApprove       = async1[any]("nvbridge.review", "approve")
	luaEditorContext = fn0("nvbridge.agents", "editor_context")
)

// RegisterAgent lists this nvbridge, with its transport, among the agents
// the user sees.
func (s *Session) RegisterAgent(ctx context.Context, transport string) error {
	return luaRegister.call(ctx, s, nil, s.channel, transport)
}

// ToolPre tells the user's Neovim a tool is about to run (its arguments as
// JSON; writes: it may change buffers or files); the result says whether
// it may run and the approval mode.
func (s *Session) ToolPre(ctx context.Context, result any, tool, args string, writes bool) error {
	return luaToolPre.call(ctx, s, result, s.channel, tool, args, writes)
}

// ToolPost tells the user's Neovim how a tool call ended.
func (s *Session) ToolPost(ctx context.Context, tool string, ok bool, summary string) error {
	return luaToolPost.call(ctx, s, nil, s.channel, tool, ok, summary)
}

// ApproveMode reads the user's approval mode: "writes", "always" or
// "never".
func (s *Session) ApproveMode(ctx context.Context, result *string) error {
	return luaApproveMode.call(ctx, s, result)
}

// Approve asks the user to approve a change (req: its tool, diff and
// files) and waits for the answer: JSON true, or {edited} with the texts
// the user changed; REJECTED or TIMEOUT otherwise.
func (s *Session) Approve(ctx context.Context, req any) (json.RawMessage, error) {
	return luaApprove.start(ctx, s, req)
}

// EditorContext reads the editor as the user sees it (file, cursor,
// selection, buffers), as JSON.
func (s *Session) EditorContext(ctx context.Context, result *string) error {
	return luaEditorContext.call(ctx, s, result)
}

// debug_ui.lua: the debug sessions shown to the user.
var (
	luaDebugRender = fn1[string]("nvbridge.debug_ui", "render")
	luaDebugClear  = fn0("nvbridge.debug_ui", "clear")
	luaDebugNotify = fn1[string]("nvbridge.debug_ui", "notify")
	luaDebugMarks  = fn1[string]("nvbridge.debug_ui", "marks")
)

// DebugRender shows the debug sessions (JSON) as signs, the stopped line
// and the panel.
func (s *Session) DebugRender(ctx context.Context, sessions string) error {
	return luaDebugRender.call(ctx, s, nil, sessions)
}

// DebugClear removes every debug sign, mark and the panel.
func (s *Session) DebugClear(ctx context.Context) error {
	return luaDebugClear.call(ctx, s, nil)
}

// DebugNotify shows the user a message about a debug control.
func (s *Session) DebugNotify(ctx context.Context, msg string) error {
	return luaDebugNotify.call(ctx, s, nil, msg)
}

// DebugMarks reads the debug marks of a file's buffer: [{line, sign,
// stopped}].
func (s *Session) DebugMarks(ctx context.Context, result any, file string) error {
	return luaDebugMarks.call(ctx, s, result, file)
}

// syntax.lua: tree-sitter parses and queries.
var (
	luaSyntaxSetup     = fn3[string, []string, bool]("nvbridge.syntax", "setup")
	luaSyntaxQuery     = fn3[any, string, any]("nvbridge.syntax", "query")
	luaSyntaxEnclosing = fn5[any, int, int, []string, int]("nvbridge.syntax", "enclosing")
	luaSyntaxErrors    = fn2[any, int]("nvbridge.syntax", "errors")
)

// SyntaxQuery runs a tree-sitter query over src with opts.
func (s *Session) SyntaxQuery(ctx context.Context, result any, src any, query string, opts any) error {
	return luaSyntaxQuery.call(ctx, s, result, src, query, opts)
}

// SyntaxEnclosing finds the innermost node of one of types around (row,
// col) of src, with depth levels of children.
func (s *Session) SyntaxEnclosing(ctx context.Context, result any, src any, row, col int, types []string, depth int) error {
	return luaSyntaxEnclosing.call(ctx, s, result, src, row, col, types, depth)
}

// SyntaxErrors lists src's syntax errors, at most limit.
func (s *Session) SyntaxErrors(ctx context.Context, result any, src any, limit int) error {
	return luaSyntaxErrors.call(ctx, s, result, src, limit)
}

// embedded.lua: how the embedded Neovim is configured (its options; the
// capabilities and on_init its servers start with, used by servers.lua).
var luaEmbeddedConfigure = fn1[string]("nvbridge.embedded", "configure")

// servers.lua: the servers the embedded Neovim starts.
var (
	luaServersSetup = fn2[string, string]("nvbridge.servers", "setup")
	luaServersKnown = fn1[string]("nvbridge.servers", "known")
	luaRestartDelay = fn1[int]("nvbridge.servers", "set_restart_delay")
)

// SetServerRestartDelay sets the delay before the first restart of a
// crashed server (tests hold restarts with a long one, then release them
// with 0).
func (s *Session) SetServerRestartDelay(ctx context.Context, ms int) error {
	return luaRestartDelay.call(ctx, s, nil, ms)
}
