package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
)

// Resources: Neovim's state as MCP resources (resources/list, read,
// templates/list, subscribe). One scheme, nvbridge://, and a host per kind;
// a file is named by its path relative to the workspace root, each
// segment percent-encoded as in a URL path:
//
//	nvbridge://diagnostics                   every diagnostic Neovim holds (JSON)
//	nvbridge://diagnostics/{+path}           one file's, after its servers checked its current text (JSON)
//	nvbridge://buffer/{+path}                a loaded buffer's text as Neovim holds it, unsaved edits included
//	nvbridge://unsaved-diff/{+path}          that buffer's unsaved changes against the disk (unified diff)
//	nvbridge://changeset/{id}                a pending changeset's whole unified diff
//	nvbridge://debug/{session_id}            a debug session's state (JSON)
//	nvbridge://debug-output/{session_id}     its program output not yet taken by a tool result (JSON)
//	nvbridge://editor                        the user's current file, cursor and selection (attached; JSON)
//
// Every file goes through the workspace policy: a sensitive file (or one
// outside the root) is never listed, read, completed or notified; reading
// one answers its PRECONDITION_FAILED.
const (
	resourceScheme        = "nvbridge://"
	uriDiagnostics        = "nvbridge://diagnostics"
	uriEditor             = "nvbridge://editor"
	prefixDiagnostics     = "nvbridge://diagnostics/"
	prefixBuffer          = "nvbridge://buffer/"
	prefixUnsavedDiff     = "nvbridge://unsaved-diff/"
	prefixChangeset       = "nvbridge://changeset/"
	prefixDebug           = "nvbridge://debug/"
	prefixDebugOutput     = "nvbridge://debug-output/"
	mimeJSON              = "application/json"
	mimeDiff              = "text/x-diff"
	mimeText              = "text/plain"
	templateDiagnostics   = prefixDiagnostics + "{+path}"
	templateBuffer        = prefixBuffer + "{+path}"
	templateUnsavedDiff   = prefixUnsavedDiff + "{+path}"
	templateChangeset     = prefixChangeset + "{id}"
	templateDebug         = prefixDebug + "{session_id}"
	templateDebugOutput   = prefixDebugOutput + "{session_id}"
	resourceListMaxBuffer = 500 // buffers listed at most (a Neovim with thousands loaded)
)

// fileURI names rel (slash-separated, relative to the root) under prefix.
func fileURI(prefix, rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return prefix + strings.Join(parts, "/")
}

// fileOfURI is the relative path a file URI under prefix names.
func fileOfURI(prefix, uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, prefix)
	if !ok || rest == "" {
		return "", apierr.Errorf(apierr.InvalidParameter, "use a URI from resources/list or a template of resources/templates/list", "%s names no file", uri)
	}
	rel, err := url.PathUnescape(rest)
	if err != nil {
		return "", apierr.Errorf(apierr.InvalidParameter, "percent-encode the path's special characters", "%s: %v", uri, err)
	}
	return rel, nil
}

// resourceError is a failed read: the JSON-RPC error's message carries the
// structured error's code, message and remediation.
type resourceError struct{ e *apierr.Error }

func (r resourceError) Error() string {
	return fmt.Sprintf("%s: %s (remediation: %s)", r.e.Code, r.e.Message, r.e.Remediation)
}

func asResourceError(err error) error {
	if err == nil {
		return nil
	}
	return resourceError{apierr.As(err)}
}

// resourceSet serves the resources of one MCP server.
type resourceSet struct {
	env *Env

	mu sync.Mutex
	// shown: whether each pending changeset is listed, by id
	// (changesetsShown).
	shown map[string]bool
}

func (r *resourceSet) attached() bool {
	return r.env.Session != nil && !r.env.Session.Embedded()
}

// staticResources are the resources that always exist.
func (r *resourceSet) staticResources() []server.ServerResource {
	out := []server.ServerResource{{
		Resource: mcp.NewResource(uriDiagnostics, "diagnostics",
			mcp.WithResourceDescription("Every diagnostic Neovim holds for the workspace (open buffers and whatever the servers published), sensitive files left out; updated when a server publishes"),
			mcp.WithMIMEType(mimeJSON)),
		Handler: r.readWorkspaceDiagnostics,
	}}
	if r.attached() {
		out = append(out, server.ServerResource{
			Resource: mcp.NewResource(uriEditor, "editor context",
				mcp.WithResourceDescription("Where the user is: the file in the current window, the cursor, the last selection, the mode, the open buffers; updated as they move"),
				mcp.WithMIMEType(mimeJSON)),
			Handler: r.readEditor,
		})
	}
	return out
}

// templates are the resources named by a file or an id.
func (r *resourceSet) templates() []server.ServerResourceTemplate {
	t := func(uri, name, desc, mime string, h server.ResourceTemplateHandlerFunc) server.ServerResourceTemplate {
		return server.ServerResourceTemplate{
			Template: mcp.NewResourceTemplate(uri, name, mcp.WithTemplateDescription(desc), mcp.WithTemplateMIMEType(mime)),
			Handler:  h,
		}
	}
	return []server.ServerResourceTemplate{
		t(templateDiagnostics, "file diagnostics", "One file's diagnostics (path relative to the workspace root), after its language servers checked its current text; updated when a server publishes for it", mimeJSON, r.readFileDiagnostics),
		t(templateBuffer, "buffer text", "A loaded buffer's text as Neovim holds it, unsaved edits included; updated on every change", mimeText, r.readBuffer),
		t(templateUnsavedDiff, "unsaved diff", "A buffer's unsaved changes as a unified diff against the file on disk (empty when none); updated on every change and write", mimeDiff, r.readUnsavedDiff),
		t(templateChangeset, "pending changeset", "A previewed changeset's whole unified diff (apply_changeset applies it)", mimeDiff, r.readChangeset),
		t(templateDebug, "debug session", "A debug session's state: where it stopped, breakpoints, processes; updated on every stop, continue and end", mimeJSON, r.readDebug),
		t(templateDebugOutput, "debug output", "A debug session's program output not yet returned by a tool result (kept within a bound, dropped bytes counted); updated as the program writes", mimeJSON, r.readDebugOutput),
	}
}

// listedBuffer is extensions.buffers' entry.
type listedBuffer struct {
	File     string `json:"file"`
	Modified bool   `json:"modified"`
	Listed   bool   `json:"listed"`
}

// allowed gives abs relative to the root when it is inside it and not
// sensitive.
func (r *resourceSet) allowed(abs string) (string, bool) {
	root := r.env.Session.Root()
	abs = filepath.Clean(abs)
	if !root.Contains(abs) || root.Sensitive(abs) || abs == root.Dir() {
		return "", false
	}
	return root.Rel(abs), true
}

func (r *resourceSet) buffers(ctx context.Context) ([]listedBuffer, error) {
	raw, err := r.env.Session.LoadedFiles(ctx)
	if err != nil {
		return nil, err
	}
	var out []listedBuffer
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "report this", "read the buffer list: %v", err)
	}
	return out, nil
}

// neovimListed is what the list names of Neovim: the loaded buffers and
// the files it holds diagnostics for (one call).
func (r *resourceSet) neovimListed(ctx context.Context) ([]listedBuffer, []string, error) {
	raw, err := r.env.Session.Listed(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out struct {
		Buffers         []listedBuffer `json:"buffers"`
		DiagnosticFiles []string       `json:"diagnostic_files"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, nil, apierr.Errorf(apierr.OperationFailed, "report this", "read the buffers and the diagnostics' files: %v", err)
	}
	return out.Buffers, out.DiagnosticFiles, nil
}

// dynamic lists the resources of the moment: loaded buffers (and their
// unsaved diffs), files with diagnostics, pending changesets, debug
// sessions. Sensitive files are left out, and a changeset touching one.
func (r *resourceSet) dynamic(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	err := r.eachDynamic(ctx, func(_ string, res func() mcp.Resource) { out = append(out, res()) })
	return out, err
}

// eachDynamic calls each with the URI of every resource dynamic lists,
// in its order, and how to make the resource (made only when asked:
// list_changed compares the URIs alone, after every call that changes
// something).
func (r *resourceSet) eachDynamic(ctx context.Context, each func(uri string, res func() mcp.Resource)) error {
	if err := r.eachNeovim(ctx, each); err != nil {
		return err
	}
	r.eachOwn(each)
	return nil
}

// eachNeovim is eachDynamic's part that Neovim's state makes: the loaded
// buffers (and their unsaved diffs), the files with diagnostics (one
// call to Neovim).
func (r *resourceSet) eachNeovim(ctx context.Context, each func(uri string, res func() mcp.Resource)) error {
	bufs, files, err := r.neovimListed(ctx)
	if err != nil {
		return err
	}
	sort.Slice(bufs, func(i, j int) bool { return bufs[i].File < bufs[j].File })
	n := 0
	for _, b := range bufs {
		rel, ok := r.allowed(b.File)
		if !ok || n >= resourceListMaxBuffer {
			continue
		}
		n++
		uri := fileURI(prefixBuffer, rel)
		each(uri, func() mcp.Resource {
			return mcp.NewResource(uri, "buffer "+rel,
				mcp.WithResourceDescription("the text of "+rel+" as Neovim holds it"), mcp.WithMIMEType(mimeText))
		})
		if b.Modified {
			uri := fileURI(prefixUnsavedDiff, rel)
			each(uri, func() mcp.Resource {
				return mcp.NewResource(uri, "unsaved diff "+rel,
					mcp.WithResourceDescription("the unsaved changes of "+rel), mcp.WithMIMEType(mimeDiff))
			})
		}
	}
	sort.Strings(files)
	for _, f := range files {
		if rel, ok := r.allowed(f); ok {
			uri := fileURI(prefixDiagnostics, rel)
			each(uri, func() mcp.Resource {
				return mcp.NewResource(uri, "diagnostics "+rel,
					mcp.WithResourceDescription("the diagnostics of "+rel), mcp.WithMIMEType(mimeJSON))
			})
		}
	}
	return nil
}

// eachOwn is eachDynamic's part that nvbridge's own state makes: the
// pending changesets, the debug sessions (no call to Neovim).
func (r *resourceSet) eachOwn(each func(uri string, res func() mcp.Resource)) {
	if r.env.Edit != nil {
		pending := r.env.Edit.Pending()
		shown := r.changesetsShown(pending)
		for i, cs := range pending {
			if !shown[i] {
				continue
			}
			each(prefixChangeset+cs.ID, func() mcp.Resource {
				return mcp.NewResource(prefixChangeset+cs.ID, "changeset "+cs.ID,
					mcp.WithResourceDescription(fmt.Sprintf("pending changeset: %d edit(s) in %d file(s), expires %s", cs.Edits, len(cs.Files), cs.ExpiresAt.UTC().Format("15:04:05Z"))),
					mcp.WithMIMEType(mimeDiff))
			})
		}
	}
	if r.env.DAP != nil {
		for _, id := range r.env.DAP.IDs() {
			each(prefixDebug+id, func() mcp.Resource {
				return mcp.NewResource(prefixDebug+id, "debug session "+id, mcp.WithResourceDescription("the state of debug session "+id), mcp.WithMIMEType(mimeJSON))
			})
			each(prefixDebugOutput+id, func() mcp.Resource {
				return mcp.NewResource(prefixDebugOutput+id, "debug output "+id, mcp.WithResourceDescription("the program output of debug session "+id), mcp.WithMIMEType(mimeJSON))
			})
		}
	}
}

// changesetsShown tells, for each of pending, whether it is listed: none
// of its files is sensitive (allAllowed). A changeset's files and the
// root's policy never change, so the verdict is kept by id while the
// changeset is pending (a session keeps up to 64, and every call that
// changes something compares the list).
func (r *resourceSet) changesetsShown(pending []edit.PendingChangeset) []bool {
	out := make([]bool, len(pending))
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := make(map[string]bool, len(pending))
	for i, cs := range pending {
		ok, known := r.shown[cs.ID]
		if !known {
			ok = r.allAllowed(cs.Files)
		}
		out[i], kept[cs.ID] = ok, ok
	}
	r.shown = kept
	return out
}

func (r *resourceSet) allAllowed(files []string) bool {
	for _, f := range files {
		if _, ok := r.allowed(f); !ok {
			return false
		}
	}
	return true
}

// neovimURIs is the set of the URIs resources/list shows now that
// Neovim's state makes (eachNeovim); list_changed compares the URIs
// alone (withOwnURIs).
func (r *resourceSet) neovimURIs(ctx context.Context) (map[string]bool, error) {
	set := map[string]bool{}
	if err := r.eachNeovim(ctx, func(uri string, _ func() mcp.Resource) { set[uri] = true }); err != nil {
		return nil, err
	}
	return set, nil
}

// withOwnURIs is neovim (neovimURIs', not changed) with the URIs
// nvbridge's own state makes (eachOwn): the set of URIs resources/list
// shows, of Neovim's state as neovim was read.
func (r *resourceSet) withOwnURIs(neovim map[string]bool) map[string]bool {
	set := maps.Clone(neovim)
	r.eachOwn(func(uri string, _ func() mcp.Resource) { set[uri] = true })
	return set
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, asResourceError(apierr.Errorf(apierr.OperationFailed, "report this", "encode %s: %v", uri, err))
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mimeJSON, Text: string(b)}}, nil
}

func textContents(uri, mime, text string) []mcp.ResourceContents {
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mime, Text: text}}
}

func (r *resourceSet) readWorkspaceDiagnostics(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	if r.env.LSP == nil {
		return nil, asResourceError(noSession)
	}
	rep, err := r.env.LSP.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{})
	if err != nil {
		return nil, asResourceError(err)
	}
	return jsonContents(req.Params.URI, rep)
}

// noSession answers a read when nvbridge has no Neovim (a catalog).
var noSession = apierr.New(apierr.PreconditionFailed, "nvbridge has no Neovim session", "start nvbridge with its Neovim (nvbridge mcp)")

// resolve checks a file URI's path against the root and the policy.
func (r *resourceSet) resolve(prefix, uri string) (rel, abs string, err error) {
	if r.env.Session == nil || r.env.Edit == nil || r.env.LSP == nil {
		return "", "", noSession
	}
	rel, err = fileOfURI(prefix, uri)
	if err != nil {
		return "", "", err
	}
	abs, err = r.env.Session.Root().Resolve(rel)
	if err != nil {
		return "", "", err
	}
	return r.env.Session.Root().Rel(abs), abs, nil
}

func (r *resourceSet) readFileDiagnostics(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	rel, _, err := r.resolve(prefixDiagnostics, req.Params.URI)
	if err != nil {
		return nil, asResourceError(err)
	}
	rep, err := r.env.LSP.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: rel})
	if err != nil {
		return nil, asResourceError(err)
	}
	return jsonContents(req.Params.URI, rep)
}

// bufferText is extensions.buffer_text's answer.
type bufferText struct {
	Loaded      bool   `json:"loaded"`
	Text        string `json:"text"`
	Modified    bool   `json:"modified"`
	Changedtick int    `json:"changedtick"`
	LineCount   int    `json:"line_count"`
	Filetype    string `json:"filetype"`
}

func (r *resourceSet) readBuffer(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	rel, abs, err := r.resolve(prefixBuffer, req.Params.URI)
	if err != nil {
		return nil, asResourceError(err)
	}
	raw, err := r.env.Session.BufferText(ctx, abs)
	if err != nil {
		return nil, asResourceError(err)
	}
	var b bufferText
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		return nil, asResourceError(apierr.Errorf(apierr.OperationFailed, "report this", "read the buffer of %s: %v", rel, err))
	}
	if !b.Loaded {
		return nil, asResourceError(apierr.Errorf(apierr.ResourceNotFound,
			"list the resources for the buffers Neovim holds; read_file reads any file", "%s is not loaded in Neovim", rel))
	}
	return textContents(req.Params.URI, mimeText, b.Text), nil
}

func (r *resourceSet) readUnsavedDiff(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	rel, _, err := r.resolve(prefixUnsavedDiff, req.Params.URI)
	if err != nil {
		return nil, asResourceError(err)
	}
	d, err := r.env.Edit.Diff(ctx, rel)
	if err != nil {
		return nil, asResourceError(err)
	}
	return textContents(req.Params.URI, mimeDiff, d.Diff), nil
}

func (r *resourceSet) readChangeset(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	if r.env.Edit == nil || r.env.Session == nil {
		return nil, asResourceError(noSession)
	}
	id := strings.TrimPrefix(req.Params.URI, prefixChangeset)
	diff, files, err := r.env.Edit.PendingDiff(id)
	if err == nil && !r.allAllowed(files) {
		// Never said apart from a missing one: its existence names nothing.
		err = apierr.Errorf(apierr.ResourceNotFound, "list the changesets again", "no changeset %q", id)
	}
	if err != nil {
		return nil, asResourceError(err)
	}
	return textContents(req.Params.URI, mimeDiff, diff), nil
}

func (r *resourceSet) readDebug(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	if r.env.DAP == nil {
		return nil, asResourceError(noSession)
	}
	id := strings.TrimPrefix(req.Params.URI, prefixDebug)
	infos, err := r.env.DAP.Infos(ctx, id)
	if err != nil {
		return nil, asResourceError(err)
	}
	return jsonContents(req.Params.URI, infos[0])
}

// debugOutput is nvbridge://debug-output/{id}'s content.
type debugOutput struct {
	SessionID    string `json:"session_id"`
	Output       any    `json:"output"`
	DroppedBytes int    `json:"dropped_bytes"`
}

func (r *resourceSet) readDebugOutput(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	if r.env.DAP == nil {
		return nil, asResourceError(noSession)
	}
	id := strings.TrimPrefix(req.Params.URI, prefixDebugOutput)
	chunks, dropped, err := r.env.DAP.PeekOutput(id)
	if err != nil {
		return nil, asResourceError(err)
	}
	return jsonContents(req.Params.URI, debugOutput{SessionID: id, Output: chunks, DroppedBytes: dropped})
}

// readEditor is the editor context without what the policy hides: a
// sensitive current file is named as withheld, with no position, and
// sensitive buffers are left out.
func (r *resourceSet) readEditor(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	ed, err := readEditor(ctx, r.env)
	if err != nil {
		return nil, asResourceError(err)
	}
	root := r.env.Session.Root()
	hidden := func(rel string) bool {
		if rel == "" || filepath.IsAbs(rel) {
			return false
		}
		return root.Sensitive(filepath.Join(root.Dir(), filepath.FromSlash(rel)))
	}
	out := editorContextResult{Attached: true, File: ed.File, Line: ed.Cursor.Line, Column: ed.Cursor.Column, Selection: ed.Selection,
		VisibleFirst: ed.Visible.First, VisibleLast: ed.Visible.Last, Mode: ed.Mode, Buffers: []editorContextFile{}}
	if hidden(ed.File) {
		out = editorContextResult{Attached: true, File: "", Mode: ed.Mode, Buffers: []editorContextFile{}}
	}
	for _, f := range ed.Buffers {
		if !hidden(f.File) {
			out.Buffers = append(out.Buffers, editorContextFile{File: f.File, Modified: f.Modified, Visible: f.Visible})
		}
	}
	return jsonContents(req.Params.URI, out)
}
