// Package edit previews and applies changesets in Neovim: sets of edits over
// one or more files (text edits, file creation, renaming and deletion) built
// from line edits, text replacements, unified diffs or LSP WorkspaceEdits.
//
// A changeset is first checked against the files as Neovim holds them
// (loaded buffers, else the disk) and rendered as a git-style unified diff
// (package preview). A preview is stored under a changeset_id; applying it
// later refuses with CONFLICT when any target moved since (a buffer's
// changedtick, or an unloaded file's content). Application is atomic: ONE
// call into Neovim (lua/nvbridge/apply.lua) validates every target, then
// edits every buffer with nvim_buf_set_text (marks, cursors and extmarks
// outside the edited ranges stay put, language servers see didChange), one
// undo step per buffer, and restores everything if anything fails.
package edit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// Engine previews and applies changesets in Neovim. Safe for concurrent use.
type Engine struct {
	s    *nvim.Session
	root workspace.Root

	// MaxStored, MaxStoredBytes and MaxAge bound the previews kept for
	// ApplyStored: how many, their total size (prepared.size), how long.
	MaxStored      int
	MaxStoredBytes int
	MaxAge         time.Duration

	// MaxEdits, MaxDiffBytes, MaxShownDiffBytes and MaxPreviewDiffBytes
	// bound what one change costs (limits.go): its edits, a preview's
	// diff, the diff an answer carries, the diff a preview's answer
	// carries (its first hunks; get_changeset_diff pages through the rest).
	MaxEdits            int
	MaxDiffBytes        int
	MaxShownDiffBytes   int
	MaxPreviewDiffBytes int

	mu        sync.Mutex
	fileLocks [fileLockStripes]sync.Mutex // one-shot changes, by path (oneshot.go)
	// writing is held around each apply (and save) call into Neovim: while
	// one waits for its disk commit, Neovim serves this channel's other
	// requests, and another apply must not run inside it.
	writing     sync.Mutex
	store       map[string]*prepared
	order       []string // ids, oldest first
	storedBytes int      // sum of the stored previews' sizes
	// recent holds the texts after the change of the last stored preview
	// (outside the stored previews' budget, as lines mostly shared with
	// the text before, which the session's text cache holds): applying it,
	// as agents mostly do next, tells that cache the buffers' new text, so
	// the next change does not read a large buffer back whole. Only the
	// texts that apply can use are held (afterKept): the others are
	// Document{} (nil Lines).
	recent struct {
		id    string
		after []preview.Document
	}
	now func() time.Time

	// Approve, when set, asks the user before any changeset is applied
	// (attached mode; tools.NewEnv sets it). Previews are not asked about.
	Approve ApproveFunc
	// Asks, when set, says whether Approve will ask the user at all (the
	// user's approval mode): what an approval shows (a save's preview, an
	// undo's) is made only when it will.
	Asks func(context.Context) bool

	// testPlan, when set by a test, may alter a plan before it is sent.
	testPlan func(*luaPlan)
	// skipRecheck, set by a test, leaves out Go's re-check of the paths
	// before apply (the Lua guard still runs).
	skipRecheck bool

	// Verifier, when set, measures the diagnostics delta of every apply
	// and of previews with Check (tools.NewEnv sets lsp's).
	Verifier Verifier

	// Recovered is what NewEngine found of commits an earlier nvbridge
	// left unfinished, and did (workspace.Root.Recover).
	Recovered []workspace.Recovery
	// commitErr: the commit handler could not be registered; every write
	// is refused with it.
	commitErr error
}

// NewEngine returns an engine for the session's workspace. It answers
// apply.lua's disk commits on the session, and first settles the commits
// an earlier nvbridge left unfinished on the root (Recovered says which).
func NewEngine(s *nvim.Session) *Engine {
	e := &Engine{
		s: s, root: s.Root(),
		MaxStored: 64, MaxStoredBytes: 64 << 20, MaxAge: 30 * time.Minute,
		MaxEdits: DefaultMaxEdits, MaxDiffBytes: DefaultMaxDiffBytes, MaxShownDiffBytes: DefaultMaxShownDiffBytes,
		MaxPreviewDiffBytes: DefaultMaxPreviewDiffBytes,
		store:               map[string]*prepared{}, now: time.Now,
	}
	if err := registerCommit(s); err != nil {
		e.commitErr = apierr.Errorf(apierr.OperationFailed, "restart nvbridge", "cannot answer Neovim's disk commits: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.Recovered = e.recoverInterrupted(ctx)
	return e
}

// Options say whether to preview (store the changeset and return its diff
// and id) or apply it at once, and whether to save the touched buffers.
type Options struct {
	Preview bool
	Save    bool
	// Check (with Preview) also reports the diagnostics delta the change
	// would cause, before anything is applied.
	Check bool
	// NoAutocmd saves without the user's BufWritePre/BufWritePost
	// autocmds (a format-on-save); by default they run, and what they
	// change is reported as Result.WrittenDiff.
	NoAutocmd bool
	// Tool names the tool asking, for the user's approval view.
	Tool string
	// Require (RequireNoNewErrors), for an apply: check the change first
	// and apply it only when it introduces no error (PRECONDITION_FAILED
	// listing the errors, nothing changed, otherwise).
	Require string
	// Guard marks a refactoring's change (rename, move, inline, signature
	// change, extract): an apply of it, at once or later from its stored
	// preview, is checked first and refused with PRECONDITION_FAILED
	// naming each error it introduces, nothing changed (applyClean, not
	// strict: a check that could not finish does not refuse, the apply's
	// own delta then decides and a change it finds errors in is taken
	// back before anything is saved). The caller lifts it explicitly:
	// AcceptErrors.
	Guard bool
	// AcceptErrors, for an apply of a stored preview (apply_changeset):
	// apply a guarded change even when it introduces errors.
	AcceptErrors bool
}

// Result describes a previewed or applied changeset.
type Result struct {
	ChangesetID string       `json:"changeset_id,omitempty"` // set when previewed
	ExpiresAt   string       `json:"expires_at,omitempty"`   // RFC 3339, with ChangesetID
	Diff        string       `json:"diff"`
	Applied     bool         `json:"applied"`
	Files       []FileResult `json:"files"`
	EditCount   int          `json:"edit_count"`
	// Diagnostics is what the change does to the servers' diagnostics:
	// measured after an apply, or before it with a preview's check.
	Diagnostics *diagdelta.Delta `json:"diagnostics_delta,omitempty"`
	// AppliedID names an applied changeset: undo with changeset_id takes
	// all of it back (every buffer, one step).
	AppliedID string `json:"applied_changeset_id,omitempty"`
	// WrittenDiff, when saving wrote something else than what was applied
	// (the user's format-on-save changed it), is the diff from the applied
	// text to what is on disk now.
	WrittenDiff string `json:"written_diff,omitempty"`
	// UserEdited: the user changed the proposal before accepting it (edit
	// then accept); UserDiff is the diff from the proposal (Diff) to what
	// was applied.
	UserEdited bool   `json:"user_edited,omitempty"`
	UserDiff   string `json:"user_diff,omitempty"`
	// Hunks, when the user decided hunk by hunk, says which hunks of Diff
	// they accepted; AppliedDiff, when they rejected some, is the diff of
	// what was applied (the accepted hunks).
	Hunks       []HunkDecision `json:"hunks,omitempty"`
	AppliedDiff string         `json:"applied_diff,omitempty"`
	// Guarded: applying this change (a refactoring's) refuses it when it
	// introduces errors, unless accept_errors.
	Guarded bool `json:"guarded,omitempty"`
	// guardErrors: of a guarded preview's checked errors, those that
	// refuse its apply (Engine.guardErrors).
	guardErrors int
	// DiffCut is set when Diff is only the start of the change's diff
	// (MaxShownDiffBytes); the changeset applies whole all the same.
	DiffCut *DiffCut `json:"diff_cut,omitempty"`
	// DiffInPreview: a stored preview was applied as it was shown, so its
	// diff (its first 16 KiB, twice over MCP: the text and the structured
	// content) is not sent again; Diff is empty.
	DiffInPreview bool `json:"diff_in_preview,omitempty"`
}

// FileResult describes one file of a changeset. When previewed, IsModified
// is the buffer's state now and LineCount what the file will have.
type FileResult struct {
	Path       string `json:"path"`
	NewPath    string `json:"new_path,omitempty"`
	Op         string `json:"op"` // edit, create, delete, rename
	Edits      int    `json:"edits"`
	IsModified bool   `json:"is_modified"`
	LineCount  int    `json:"line_count"`
	Saved      bool   `json:"saved"`
	Note       string `json:"note,omitempty"`
}

// Summary is a short rendering: what happened, then the diff.
func (r Result) Summary() string {
	var b strings.Builder
	switch {
	case r.ChangesetID != "":
		if r.Guarded && r.guardErrors > 0 {
			fmt.Fprintf(&b, "WARNING: this change introduces %d error(s) (listed below): apply_changeset refuses it unless accept_errors: true.\n", r.guardErrors)
		}
		fmt.Fprintf(&b, "Preview of %d edit(s) in %d file(s); apply with apply_changeset {\"changeset_id\": %q} (expires %s).\n",
			r.EditCount, len(r.Files), r.ChangesetID, r.ExpiresAt)
	case r.Applied:
		fmt.Fprintf(&b, "Applied %d edit(s) in %d file(s)", r.EditCount, len(r.Files))
		if r.AppliedID != "" {
			fmt.Fprintf(&b, " as %s (undo {\"changeset_id\": %q} takes it all back)", r.AppliedID, r.AppliedID)
		}
		b.WriteString(".\n")
	default:
		b.WriteString("Nothing to change.\n")
	}
	b.WriteString(verdictLine(r.Diagnostics))
	b.WriteString(hunksLine(r.Hunks))
	for _, f := range r.Files {
		name := f.Path
		if f.NewPath != "" {
			name += " -> " + f.NewPath
		}
		fmt.Fprintf(&b, "  %s %s: %d edit(s), %d lines, modified=%v saved=%v", f.Op, name, f.Edits, f.LineCount, f.IsModified, f.Saved)
		if f.Note != "" {
			b.WriteString(" (" + f.Note + ")")
		}
		b.WriteByte('\n')
	}
	b.WriteString(r.cutNote())
	if r.DiffInPreview {
		b.WriteString("The diff is the preview's (not repeated here).\n")
	}
	b.WriteString(r.Diff)
	if r.AppliedDiff != "" {
		b.WriteString("\nThe user applied only the hunks they accepted; what was applied:\n")
		b.WriteString(r.AppliedDiff)
	}
	if r.WrittenDiff != "" {
		b.WriteString("\nSaving ran the user's write autocmds (format-on-save), which changed what was written; the disk differs from the diff above by:\n")
		b.WriteString(r.WrittenDiff)
	}
	return b.String()
}

// Submit checks the changeset against the files as Neovim holds them now,
// renders its diff, and either stores it (opts.Preview) or applies it
// atomically at once. A FileChange whose Old document is set must still
// match the file (else CONFLICT: the edits were computed against other
// text); an unset Old (nil Lines) means "as it is now".
func (e *Engine) Submit(ctx context.Context, cs preview.Changeset, opts Options) (Result, error) {
	p, err := e.prepare(ctx, cs, nil)
	if err != nil {
		return Result{}, err
	}
	return e.finish(ctx, p, opts)
}

// ApplyStored applies a previewed changeset exactly as previewed. It refuses
// with CONFLICT when any target moved since the preview.
func (e *Engine) ApplyStored(ctx context.Context, id string, save bool) (Result, error) {
	return e.ApplyStoredWith(ctx, id, Options{Save: save})
}

// ApplyStoredWith is ApplyStored with the save options (Save, NoAutocmd,
// Tool).
func (e *Engine) ApplyStoredWith(ctx context.Context, id string, opts Options) (Result, error) {
	e.mu.Lock()
	e.expire()
	p := e.store[id]
	if p != nil && p.after == nil && e.recent.id == id {
		q := *p
		q.after = e.recent.after
		p = &q
	}
	e.mu.Unlock()
	if p == nil {
		return Result{}, apierr.Errorf(apierr.ResourceNotFound,
			"preview the change again (changeset ids expire after "+e.MaxAge.String()+", and only the last "+fmt.Sprint(e.MaxStored)+" are kept, within "+fmt.Sprint(e.MaxStoredBytes)+" bytes in all; an applied one cannot be applied twice)",
			"no changeset %q", id)
	}
	if err := ValidRequire(opts.Require); err != nil {
		return Result{}, err
	}
	if p.guard && !opts.AcceptErrors {
		opts.Guard = true
	}
	res, err := e.applyWith(ctx, p, opts, id)
	if err != nil {
		return Result{}, err
	}
	e.mu.Lock()
	e.remove(id)
	e.mu.Unlock()
	if !res.UserEdited {
		// The agent was shown this diff with the preview it applies.
		res.Diff, res.DiffCut, res.DiffInPreview = "", nil, true
		return res, nil
	}
	return e.shown(res), nil
}

// Discard forgets a previewed changeset.
func (e *Engine) Discard(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expire()
	if e.store[id] == nil {
		return apierr.Errorf(apierr.ResourceNotFound, "it may have expired or been applied already", "no changeset %q", id)
	}
	e.remove(id)
	return nil
}

// finish stores or applies a prepared changeset.
func (e *Engine) finish(ctx context.Context, p *prepared, opts Options) (Result, error) {
	if err := ValidRequire(opts.Require); err != nil {
		return Result{}, err
	}
	// A cancelled (or timed out) request keeps no half-built changeset
	// and applies nothing.
	if err := apierr.FromContext(ctx, "the change", "retry with a larger timeout"); err != nil {
		return Result{}, err
	}
	changes := p.edits
	for _, f := range p.files {
		if f.Kind != "edit" {
			changes++
		}
	}
	if changes == 0 {
		return Result{Diff: p.diff, Files: p.results}, nil
	}
	if !opts.Preview {
		res, err := e.applyWith(ctx, p, opts, newID())
		if err != nil {
			return Result{}, err
		}
		return e.shown(res), nil
	}
	if err := e.checkDiff(p); err != nil {
		return Result{}, err
	}
	var delta *diagdelta.Delta
	if opts.Check {
		d, err := e.check(ctx, p)
		if err != nil {
			return Result{}, err
		}
		delta = d
	}
	p.guard, p.checked = opts.Guard, delta
	// A stored preview keeps no whole documents, except the texts after the
	// change when the user approves changes: they may edit them before
	// accepting.
	p.before = nil
	after := p.after
	if e.Approve == nil {
		p.after = nil
	}
	p.bytes = p.size()
	id := newID()
	e.mu.Lock()
	e.recent.id, e.recent.after = id, e.afterKept(after)
	if p.bytes > e.MaxStoredBytes {
		max := e.MaxStoredBytes
		e.mu.Unlock()
		return Result{}, apierr.Errorf(apierr.InvalidParameter,
			"split the change into smaller ones (fewer files or edits per call), or apply it without a preview (preview: false), which stores nothing",
			"the preview is too large to keep: %d bytes, over the %d bytes all stored previews may hold (nothing was changed)", p.bytes, max)
	}
	e.expire()
	e.store[id] = p
	e.order = append(e.order, id)
	e.storedBytes += p.bytes
	for len(e.order) > e.MaxStored || e.storedBytes > e.MaxStoredBytes {
		e.remove(e.order[0])
	}
	e.mu.Unlock()
	res := Result{
		ChangesetID: id, ExpiresAt: p.created.Add(e.MaxAge).UTC().Format(time.RFC3339),
		Diff: p.diff, Files: p.results, EditCount: p.edits, Diagnostics: delta, Guarded: opts.Guard,
	}
	if opts.Guard && delta != nil {
		res.guardErrors = len(e.guardErrors(delta))
	}
	return e.shownPreview(res), nil
}

// afterKept is what of a stored preview's texts after the change its
// apply can use: the texts the session's text cache keeps
// (nvim.TextCacheMin bytes and larger), and every text while the check's
// copy follows applies (Follower). The others are left out (Document{}, in
// their place; nil when none is left): a rename over the standard library
// previews a hundred small files, whose texts (and the texts before, which
// their unchanged lines share) stayed live until the next preview, about
// 3 MB of heap the process kept for nothing.
func (e *Engine) afterKept(after []preview.Document) []preview.Document {
	if f, ok := e.Verifier.(Follower); ok && f.Following() {
		return after
	}
	var out []preview.Document
	for i, d := range after {
		if atLeast(d, nvim.TextCacheMin) {
			if out == nil {
				out = make([]preview.Document, len(after))
			}
			out[i] = d
		}
	}
	return out
}

// atLeast reports whether doc's text is n bytes or longer (counting its
// lines only as far as needed; a final line counts its line end).
func atLeast(doc preview.Document, n int) bool {
	eol := max(len(doc.EOL), 1) // "" is "\n"
	size := 0
	for _, l := range doc.Lines {
		if size += len(l) + eol; size >= n {
			return true
		}
	}
	return false
}

// apply sends the plan to Neovim in one call.
func (e *Engine) apply(ctx context.Context, p *prepared, opts Options, id string) (Result, error) {
	// From here on files change (or the user may edit them while asked):
	// snapshots read earlier in this call are not reused.
	nvim.ForgetSnapshots(ctx)
	defer nvim.ForgetSnapshots(ctx)
	var userDiff, appliedDiff string
	var hunks []HunkDecision
	proposal := p.diff
	if e.asking(ctx) {
		files := make([]string, 0, len(p.results))
		for _, r := range p.results {
			files = append(files, r.Path)
		}
		items, _, err := hunksOf(p)
		if err != nil {
			return Result{}, err
		}
		decision, err := e.Approve(ctx, Approval{Tool: opts.Tool, Kind: "change", ChangesetID: id, Diff: p.diff, Files: files,
			Proposed: proposals(p), Hunks: items, Check: func(ctx context.Context) error { return e.stillApplies(ctx, p, opts) }})
		if err != nil {
			return Result{}, err
		}
		if decision.Hunks != nil {
			if p, hunks, err = e.withHunks(ctx, p, decision.Hunks); err != nil {
				return Result{}, err
			}
			if len(p.files) == 0 {
				return Result{}, apierr.New(apierr.Rejected, "the user rejected every hunk of the change (nothing was changed)",
					"do not apply it again as is; ask the user what they want instead")
			}
			if p.diff != proposal {
				appliedDiff = e.boundedApplied(p.diff)
			}
		}
		if len(decision.Edited) > 0 {
			if p, userDiff, err = e.withUserEdits(ctx, p, decision.Edited); err != nil {
				return Result{}, err
			}
		}
	}
	plan := luaPlan{ID: id, Files: p.files, Save: opts.Save, NoAutocmd: opts.NoAutocmd, Guard: e.guard()}
	if e.testPlan != nil {
		plan.Files = slices.Clone(plan.Files)
		e.testPlan(&plan)
	}
	if err := e.recheck(plan.Files); err != nil {
		return Result{}, err
	}
	// The last moment a cancellation stops the change: nothing is sent.
	if err := apierr.FromContext(ctx, "the change", "retry with a larger timeout"); err != nil {
		return Result{}, err
	}
	if e.commitErr != nil && needsDisk(plan) {
		return Result{}, e.commitErr
	}
	baseline, failed := e.before(ctx, p)
	// Once sent, the call runs to its end in Neovim: wait for the real
	// outcome rather than report a timeout for a change that happened.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	var reply luaApplyReply
	e.writing.Lock()
	callErr := e.s.ApplyPlan(actx, &reply, plan)
	e.writing.Unlock()
	rec := takeCommit(id, callErr != nil)
	if callErr != nil {
		return Result{}, e.interrupted(callErr, rec)
	}
	if reply.Err != nil {
		if rec != nil && rec.err != nil {
			// The commit's own error: it says where each file stands.
			return Result{}, rec.err
		}
		err := e.luaError(reply.Err)
		switch {
		case reply.Err.Remediation != "":
			// The guard's own advice.
		case err.Code == apierr.Conflict:
			err.Remediation = "a file changed since the change was computed (nothing was changed): preview it again against the current text"
		case err.Code == apierr.InvalidParameter:
			err.Remediation = "the edit does not fit the buffer (nothing was changed): preview it again against the current text"
		case err.Code == apierr.PreconditionFailed:
			err.Remediation = "nothing was changed: deal with the buffer named in the message in Neovim (save, discard or make it modifiable), then retry"
		default:
			err.Remediation = "nothing was changed; fix the cause named in the message and retry"
		}
		if reply.Err.Moved {
			return Result{}, movedError{err}
		}
		return Result{}, err
	}
	if len(reply.Files) != len(p.results) {
		return Result{}, fmt.Errorf("apply returned %d files for %d", len(reply.Files), len(p.results))
	}
	out := Result{Diff: proposal, Applied: true, EditCount: p.edits, Files: make([]FileResult, len(p.results)), AppliedID: id,
		UserDiff: userDiff, UserEdited: userDiff != "", Hunks: hunks, AppliedDiff: appliedDiff}
	out.WrittenDiff = e.writtenDiff(p, reply.Files)
	texts := make([]func() string, len(reply.Files)) // each file's new text, made once if asked for
	for i, r := range p.results {
		lf := reply.Files[i]
		if lf.WrittenText != nil {
			r.Note = joinNote(r.Note, "saving ran the user's write autocmds, which changed the text written (see written_diff)")
			lf.Note = joinNote(lf.Note, "saving ran the user's write autocmds, which changed the text written (see written_diff)")
			lf.LineCount = len(preview.ParseDocument(*lf.WrittenText).Lines)
		}
		r.IsModified, r.LineCount, r.Saved, r.Note = lf.Modified, lf.LineCount, lf.Saved, lf.Note
		if lf.Kind == "delete" {
			r.LineCount = 0
		}
		out.Files[i] = r
		if i < len(p.after) && lf.Kind != "delete" && len(p.after[i].Lines) > 0 && lf.WrittenText == nil &&
			lf.EOL == p.after[i].FinalNewline && (lf.FileFormat == "dos") == (p.after[i].EOL == "\r\n") {
			path := p.files[i].Path
			if lf.NewPath != "" {
				path = lf.NewPath
			}
			dos := lf.FileFormat == "dos"
			texts[i] = textOf(p.after[i], dos)
			e.s.RememberTextOf(path, lf.Bufnr, lf.ChangedTick, lf.FileFormat, lf.EOL, lf.Bomb, p.after[i].Len(), texts[i], parseOf(p.after[i], dos))
		}
	}
	out.Diagnostics = e.after(ctx, baseline, failed)
	if f, ok := e.Verifier.(Follower); ok && baseline != nil {
		follow := map[string]func() string{}
		for i, lf := range reply.Files {
			if i >= len(p.after) || lf.Kind == "delete" || p.after[i].Lines == nil && lf.WrittenText == nil {
				continue // a text not kept (afterKept) is not followed
			}
			path := p.files[i].Path
			if lf.NewPath != "" {
				path = lf.NewPath
			}
			switch {
			case lf.WrittenText != nil:
				written := *lf.WrittenText
				follow[path] = func() string { return written }
			case texts[i] != nil:
				follow[path] = texts[i]
			default:
				follow[path] = textOf(p.after[i], lf.FileFormat == "dos")
			}
		}
		f.Follow(follow)
	}
	return out, nil
}

// textOf makes doc's text once, when first asked for, and records its
// parse (the next change plans from it without splitting it again): doc's
// lines cut from that text, which then holds them once.
func textOf(doc preview.Document, dos bool) func() string {
	return sync.OnceValue(func() string {
		text := doc.Text()
		parsed.put(text, dos, doc.Within(text))
		return text
	})
}

// parseOf is what the session's text cache hands the next change in place
// of doc's text (nvim.SnapshotOptions.Parsed: the text, 100,000 lines,
// need not be joined to be split again): doc itself, which is what
// documentOf makes of that text, unless the snapshot must see the text to
// refuse it (a unix buffer whose every line ends in "\r", which
// preview.ParseBuffer would read as a CRLF text).
func parseOf(doc preview.Document, dos bool) any {
	if !dos && preview.CRTerminated(doc.Lines, doc.FinalNewline) {
		return nil
	}
	return doc
}

// expire drops stored previews past MaxAge (e.mu held).
func (e *Engine) expire() {
	cutoff := e.now().Add(-e.MaxAge)
	for len(e.order) > 0 && e.store[e.order[0]].created.Before(cutoff) {
		e.remove(e.order[0])
	}
}

// remove forgets a stored preview (e.mu held).
func (e *Engine) remove(id string) {
	if p := e.store[id]; p != nil {
		e.storedBytes -= p.bytes
	}
	if e.recent.id == id {
		e.recent.id, e.recent.after = "", nil
	}
	delete(e.store, id)
	if i := slices.Index(e.order, id); i >= 0 {
		e.order = slices.Delete(e.order, i, i+1)
	}
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "cs_" + hex.EncodeToString(b[:])
}

// luaError converts an error apply.lua returned, naming files relative to
// the workspace root.
func (e *Engine) luaError(le *nvim.LuaError) *apierr.Error {
	err := le.APIError()
	err.Message = strings.ReplaceAll(err.Message, e.root.Dir()+string(filepath.Separator), "")
	return err
}
