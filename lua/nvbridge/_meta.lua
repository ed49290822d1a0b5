---@meta
--- Every table that crosses between Go and the Lua bridge, as LuaCATS
--- classes (the style of Neovim's runtime/lua/vim/lsp/_meta/protocol.lua).
--- Each class names the Go type it mirrors; a Go test (contract_test.go in
--- nvim, edit, lsp and lang) checks the Go struct tags against these fields,
--- names, types and optionality (`name?` is a Go pointer or omitempty
--- field). Tables travel as msgpack (the Go `msgpack` tags) unless a class
--- says JSON (`json` tags: vim.json on the Lua side); raw LSP payloads are
--- passed through as JSON and are not described here.
---
--- Not a module: nothing requires it.
error('nvbridge._meta is a type description, not a module')

--- An error returned as data, never thrown (Go: nvim.LuaError). Codes are
--- apierr codes: INVALID_PARAMETER, RESOURCE_NOT_FOUND, CONFLICT, ...
---@class nvbridge.Error
---@field code string
---@field message string
---@field path? string the file it is about, when it is about one
---@field remediation? string advice better than the code's default
---@field moved? boolean CONFLICT: the buffer changed (its changedtick moved) between the read the change was planned on and its apply

--- bridge.open's reply (Go: nvim.openReply, nvim.BufferState).
---@class nvbridge.OpenReply
---@field bufnr integer
---@field changedtick integer
---@field modified boolean
---@field line_count integer
---@field filetype string
---@field fileformat string
---@field eol boolean
---@field state string "loaded" | "same" | "reloaded"
---@field err? nvbridge.Error

--- A loaded buffer's state (Go: nvim.BufferState): bridge.open's reply
--- without its error.
---@class nvbridge.BufferState
---@field bufnr integer
---@field changedtick integer
---@field modified boolean
---@field line_count integer
---@field filetype string
---@field fileformat string
---@field eol boolean
---@field state string "loaded" | "same" | "reloaded"

--- A buffer's identity for the text cache (Go: nvim.bufferKey).
---@class nvbridge.BufferKey
---@field bufnr integer
---@field changedtick integer
---@field fileformat string
---@field eol boolean
---@field bomb boolean

--- snapshot.files's options (Go: nvim.SnapshotOptions).
---@class nvbridge.SnapshotOptions
---@field reconcile boolean
---@field with_disk boolean
---@field known? table<string, nvbridge.BufferKey> texts the Go side already holds
---@field api_lines_min? integer buffers of at least this many lines are read by the Go side (nvim_buf_get_lines)
---@field track_min? integer follow the line changes of buffers of at least this many bytes (the texts the Go side caches)
---@field disk_text? boolean leave the text of a file not loaded that is its bytes on disk to the Go side

--- The lines of a buffer changed since a text the Go side holds (Go:
--- nvim.LineDelta): lines [first, old_end) of that text (base_count lines)
--- are now `lines`.
---@class nvbridge.LineDelta
---@field first integer
---@field old_end integer
---@field base_count integer
---@field lines string[]

--- One file as Neovim holds it (Go: nvim.FileSnapshot).
---@class nvbridge.FileSnapshot
---@field path string
---@field exists boolean
---@field is_dir boolean
---@field loaded boolean
---@field text string
---@field bomb boolean
---@field disk? string
---@field fingerprint string
---@field bufnr integer
---@field changedtick integer
---@field lsp_version? integer
---@field modified boolean
---@field user_modified boolean
---@field modifiable boolean
---@field fileformat string
---@field fileencoding string the file's encoding on disk (text is always UTF-8)
---@field line_count integer
---@field eol boolean
---@field renamed_from string
---@field same boolean the Go side's cached text is current (text left out)
---@field fetch boolean the Go side reads the lines itself (text left out)
---@field delta? nvbridge.LineDelta only the lines changed since the Go side's text (text left out)
---@field disk_text boolean the text is the file's bytes on disk, which the Go side reads (text left out)
---@field err? nvbridge.Error

--- One nvim_buf_set_text call, as an array (Go: edit.bufOp with
--- msgpack ",array"): start row, start byte column, end row, end byte
--- column, replacement text.
---@alias nvbridge.BufOp [integer, integer, integer, integer, string]

--- What a target must still be (Go: edit.luaExpect).
---@class nvbridge.Expect
---@field loaded boolean
---@field bufnr integer
---@field changedtick integer
---@field fingerprint string

--- One file of a plan (Go: edit.luaFile).
---@class nvbridge.PlanFile
---@field path string
---@field kind string "edit" | "create" | "delete" | "rename"
---@field new_path? string
---@field overwrite boolean
---@field fileformat? string
---@field expect nvbridge.Expect
---@field ops nvbridge.BufOp[]
---@field clear boolean
---@field trim_tail boolean
---@field eol? boolean
---@field line_count integer

--- apply.apply's plan (Go: edit.luaPlan).
---@class nvbridge.Plan
---@field id string the changeset's id (undo of a whole changeset)
---@field files nvbridge.PlanFile[]
---@field save boolean
---@field noautocmd boolean save without the user's write autocmds
---@field guard nvbridge.Guard
---@field fail_at? string fault injection for tests: fail at this path

--- What guard.lua confines every write, creation, rename and
--- deletion to, in the call that does it (Go: edit.luaGuard).
---@class nvbridge.Guard
---@field root string the workspace root's real path
---@field allow_hardlinks boolean write to files with other hard links
---@field channel integer nvbridge's channel: the commit request goes there

--- One disk operation of a commit (Go: edit.luaDiskOp), sent with
--- vim.rpcrequest(channel, 'nvbridge_commit', id, ops).
---@class nvbridge.DiskOp
---@field kind string "write" | "remove"
---@field path string absolute
---@field data string the file's new bytes (write), unless buffer
---@field create boolean the file must not exist
---@field buffer? nvbridge.BufferSource the buffer whose bytes Go reads and writes (a write without data)

--- A buffer's bytes as Neovim writes them, read by Go (Go: edit.luaBufferSource):
--- its lines at changedtick, joined by nl, nl after the last when eol, after bom.
---@class nvbridge.BufferSource
---@field bufnr integer
---@field changedtick integer
---@field line_count integer
---@field nl string
---@field eol boolean
---@field bom string

--- Where one file of a commit stands (Go: edit.luaDiskState).
---@class nvbridge.DiskState
---@field path string absolute, as asked
---@field disk string "new" | "old" | "unknown"
---@field note? string
---@field fingerprint? string the written bytes' FNV-64 fingerprint (buffers.fingerprint's, LuaJIT's)

--- The answer to a commit request (Go: edit.luaCommitReply).
---@class nvbridge.CommitReply
---@field files nvbridge.DiskState[]
---@field err? nvbridge.Error

--- One applied file (Go: edit.luaFileResult).
---@class nvbridge.FileResult
---@field path string
---@field new_path string
---@field kind string
---@field bufnr integer
---@field changedtick integer
---@field modified boolean
---@field line_count integer
---@field fileformat string
---@field eol boolean
---@field bomb boolean
---@field saved boolean
---@field note string
---@field written_text? string the text a save wrote when the user's write autocmds changed it

--- apply.apply's reply (Go: edit.luaApplyReply).
---@class nvbridge.ApplyReply
---@field files nvbridge.FileResult[]
---@field err? nvbridge.Error

--- undo_log.undo / write.save / apply.discard's reply (Go: edit.luaBufferReply).
---@class nvbridge.BufferReply
---@field bufnr integer
---@field changedtick integer
---@field modified boolean
---@field line_count integer
---@field remaining integer
---@field saved boolean
---@field discarded boolean
---@field note string
---@field path? string undo_all: the file
---@field written_text? string save: the text written when the user's write autocmds changed it
---@field before_text? string save: the text before those autocmds ran
---@field err? nvbridge.Error

--- A file's text as a change proposes it, for the user's review (Go:
--- edit.ProposedFile), in review.approve's request.
---@class nvbridge.ProposedFile
---@field path string absolute
---@field rel string relative to the workspace root
---@field text string

--- actions.begin_capture's reply (Go: lsp.captureBegin).
---@class nvbridge.CaptureBegin
---@field token? integer
---@field err? nvbridge.Error

--- A language server the embedded Neovim starts, JSON (Go: lang.ServerSpec).
---@class nvbridge.ServerSpec
---@field name string
---@field cmd string[]
---@field filetypes string[]
---@field markers? string[]
---@field env? table<string, string>
---@field init_options? table<string, any>
---@field settings? table<string, any>
---@field indexed_with? string[] files that, in the root, make the server index in the background after attaching
---@field client_names? string[] other names a user's configuration gives its clients
---@field staged_publishes? boolean publishes one text's diagnostics in stages, without a version
---@field diagnostics_sync? nvbridge.ServerCommand[] commands that answer a document's current diagnostics at once ("${uri}": its URI)
---@field diagnosis_progress? nvbridge.DiagnosisProgress how it reports its diagnosis runs with $/progress
---@field rename_hints? string the request naming a symbol a command introduced, captured with its edits

--- A workspace/executeCommand request, JSON (Go: lang.ServerCommand).
---@class nvbridge.ServerCommand
---@field command string
---@field arguments any[]

--- How a server reports its diagnosis runs, JSON (Go: lang.DiagnosisProgress):
--- as $/progress work whose title starts with title, once the setting at
--- the path setting (into its settings) is true.
---@class nvbridge.DiagnosisProgress
---@field title string
---@field setting string[]
---@field untitled? boolean its untitled work is its diagnosis (pyright's analysis)
---@field publishes? boolean it also publishes every file it re-checked: publishes and runs are both waited for
---@field pulls? boolean it answers textDocument/diagnostic once it has checked the file (pyright), whatever the client declared

--- A client attached to a buffer, JSON from wait.wait_clients (Go:
--- lsp.serverWire).
---@class nvbridge.Client
---@field id integer
---@field name string
---@field offset_encoding string
---@field root_dir any string, or vim.NIL
---@field methods table<string, boolean> the supported ones, of those asked for

--- read.read's argument (Go: nvim.ReadSpec): the file, the target line
--- and the text the Go side located the target on, the position in every
--- offset encoding, the request and its params (JSON, the position left to
--- this side), the requests asked with it, the context lines wanted per
--- location of the answer, and the servers known to have analysed it.
---@class nvbridge.ReadSpec
---@field path string absolute
---@field line integer 0-based
---@field text string
---@field positions? table<string, integer> offset encoding -> character (none: character in all three)
---@field character integer
---@field method string
---@field params string JSON
---@field params_at integer 0-based byte of params that is the position's character (0: none)
---@field params_bare boolean params are a TextDocumentPositionParams' (the also requests' too)
---@field also? string[]
---@field chain? string[] asked with {item = the answer's first item}
---@field block integer
---@field methods string[]? described beyond status.navigation_methods
---@field grace_ms integer
---@field ready_names table<string, boolean>
---@field analysed table<string, boolean> "bufnr:client_id"
---@field snapshot? nvbridge.SnapshotOptions snapshot.files of path, sent with nvbridge_snapshot once the request went

--- wait.open_wait's answer, JSON (Go: lsp.openWaitReply): the buffer
--- after the wait, its ready clients and one line's text (nil when none was
--- asked for or the buffer has no such line).
---@class nvbridge.OpenWait
---@field buffer nvbridge.BufferState
---@field clients nvbridge.Client[]
---@field line? string

--- A running client with a buffer to send requests through, JSON from
--- navigation.workspace_clients (Go: lsp.symbolClient).
---@class nvbridge.WorkspaceClient
---@field id integer
---@field name string
---@field offset_encoding string
---@field root_dir any
---@field bufnr integer

--- An import read with tree-sitter, JSON from structure.imports (Go: the
--- list decoded in lsp.decodeTSImports).
---@class nvbridge.TSImport
---@field path string
---@field line integer 0-based
---@field col integer 0-based byte column
---@field system boolean

--- What syntax.lua parses (Go: syntax.Source): a loaded buffer's current
--- text (bufnr), else the text given.
---@class nvbridge.SyntaxSource
---@field lang string tree-sitter language ("python", "typescript", "tsx")
---@field text? string
---@field bufnr? integer

--- syntax.query's options (Go: syntax.queryOpts).
---@class nvbridge.SyntaxQueryOpts
---@field depth? integer levels of children to include with each captured node
---@field start_row? integer only matches from this row (0-based)
---@field end_row? integer only matches up to this row (inclusive)

--- A syntax node (Go: syntax.Node): Neovim positions (0-based rows, byte
--- columns) and byte offsets into the parsed text.
---@class nvbridge.SyntaxNode
---@field type string
---@field field string the field name in its parent ("" when none)
---@field named boolean
---@field start_row integer
---@field start_col integer
---@field end_row integer
---@field end_col integer
---@field start_byte integer
---@field end_byte integer
---@field text string
---@field children? nvbridge.SyntaxNode[] named children and those with a field name, when asked for

--- One capture of a query match (Go: syntax.Capture).
---@class nvbridge.SyntaxCapture
---@field name string
---@field node nvbridge.SyntaxNode

--- One query match (Go: syntax.Match).
---@class nvbridge.SyntaxMatch
---@field pattern integer
---@field captures nvbridge.SyntaxCapture[]

--- syntax.query's reply (Go: syntax.queryReply).
---@class nvbridge.SyntaxMatches
---@field matches? nvbridge.SyntaxMatch[]
---@field err? nvbridge.Error

--- syntax.enclosing's reply (Go: syntax.enclosingReply): no node when none
--- of the types encloses the position.
---@class nvbridge.SyntaxEnclosing
---@field node? nvbridge.SyntaxNode
---@field ancestors? string[] the node's ancestors' types, innermost first
---@field err? nvbridge.Error

--- syntax.errors's reply (Go: syntax.errorsReply).
---@class nvbridge.SyntaxErrors
---@field errors? nvbridge.SyntaxNode[]
---@field err? nvbridge.Error
