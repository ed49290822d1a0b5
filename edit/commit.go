package edit

import (
	"context"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/workspace"
)

// Writing to the disk. apply.lua edits buffers and takes the bytes each
// saved buffer writes; it never writes them itself. In the same call it
// asks the Go side (vim.rpcrequest "nvbridge_commit", answered here while
// the apply call waits) to put them on disk as one workspace.Root.Commit:
// through a handle on the root, all files or none, crash-atomic. Neovim
// processes no input meanwhile (a nested request serves only this
// channel), so the user sees the apply as one step.

// luaDiskOp is one disk operation apply.lua asks for (LuaCATS
// nvbridge.DiskOp).
type luaDiskOp struct {
	Kind   string `msgpack:"kind"`
	Path   string `msgpack:"path"`
	Data   []byte `msgpack:"data"`
	Create bool   `msgpack:"create"`
	// Buffer, for a write without Data: the buffer whose bytes are
	// written, read here (nvim.Session.BufferBytes) rather than taken as
	// Lua strings and joined in Neovim.
	Buffer *luaBufferSource `msgpack:"buffer,omitempty"`
}

// luaBufferSource is a buffer's bytes as Neovim writes them (LuaCATS
// nvbridge.BufferSource): its lines at changedtick, joined by nl, nl after
// the last when eol, after bom.
type luaBufferSource struct {
	Bufnr       int    `msgpack:"bufnr"`
	ChangedTick int    `msgpack:"changedtick"`
	LineCount   int    `msgpack:"line_count"`
	NL          string `msgpack:"nl"`
	EOL         bool   `msgpack:"eol"`
	BOM         string `msgpack:"bom"`
}

// luaCommitReply is the answer apply.lua gets (LuaCATS
// nvbridge.CommitReply): where each file stands, and the error.
type luaCommitReply struct {
	Files []luaDiskState `msgpack:"files"`
	Err   *nvim.LuaError `msgpack:"err,omitempty"`
}

type luaDiskState struct {
	Path string `msgpack:"path"` // absolute, as asked
	Disk string `msgpack:"disk"` // new, old, unknown
	Note string `msgpack:"note,omitempty"`
	// Fingerprint of the bytes written (a write that reached the disk):
	// buffers.lua's FNV-64, which Lua would otherwise compute over the
	// same bytes (3.5 ms for a 5 MB file).
	Fingerprint string `msgpack:"fingerprint,omitempty"`
}

// commitRecord is what a commit did, kept until the apply that asked for
// it has read it: when Neovim ends during the apply, the Go side still
// knows what reached the disk. done is closed once the commit ended.
type commitRecord struct {
	done  chan struct{}
	files []workspace.DiskOutcome
	err   error
	// abandoned: the apply gave up on its call (Neovim ended) before this
	// commit started; it must not start.
	abandoned bool
}

// commits holds the records by commit id. Package-wide: the handler is
// registered once per Neovim session, and every engine of that session
// reads its own ids (random) here.
var commits = struct {
	sync.Mutex
	byID map[string]*commitRecord
}{byID: map[string]*commitRecord{}}

// TestCommitHooks, when set (by a test, or by cmd/nvbridge for its fault
// tests), is passed to every commit.
var TestCommitHooks *workspace.CommitHooks

// sessionsWithCommit are the sessions whose nvbridge_commit handler is
// registered.
var sessionsWithCommit sync.Map // *nvim.Session -> struct{}

// registerCommit answers apply.lua's commit requests on the session.
func registerCommit(s *nvim.Session) error {
	if _, loaded := sessionsWithCommit.LoadOrStore(s, struct{}{}); loaded {
		return nil
	}
	root := s.Root()
	return s.Handle("nvbridge_commit", func(id string, ops []luaDiskOp) (*luaCommitReply, error) {
		var reply *luaCommitReply
		if err := safego.Call("the disk commit", func() { reply = commitOps(s, root, id, ops) }); err != nil {
			reply = &luaCommitReply{Err: luaErrorOf(err)}
		}
		return reply, nil
	})
}

// commitOps runs one commit and records it for the apply that asked.
func commitOps(s *nvim.Session, root workspace.Root, id string, ops []luaDiskOp) *luaCommitReply {
	// The bytes of the buffers written, read first (Neovim, waiting for
	// this answer, serves this channel's requests): nothing is written
	// when one cannot be read.
	for i := range ops {
		if src := ops[i].Buffer; src != nil && ops[i].Kind == "write" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			data, err := s.BufferBytes(ctx, src.Bufnr, src.ChangedTick, src.LineCount, src.NL, src.EOL, src.BOM)
			cancel()
			if err != nil {
				return &luaCommitReply{Err: luaErrorOf(apierr.Errorf(apierr.CodeOf(err), "nothing was written; retry",
					"cannot read the bytes of %s to write: %v (nothing was written)", ops[i].Path, err))}
			}
			ops[i].Data = data
		}
	}
	commits.Lock()
	if rec := commits.byID[id]; rec != nil && rec.abandoned {
		delete(commits.byID, id)
		commits.Unlock()
		return &luaCommitReply{Err: &nvim.LuaError{Code: string(apierr.Cancelled), Message: "the apply ended before its commit started (nothing was written)"}}
	}
	rec := &commitRecord{done: make(chan struct{})}
	commits.byID[id] = rec
	commits.Unlock()

	disk := make([]workspace.DiskOp, len(ops))
	for i, op := range ops {
		disk[i] = workspace.DiskOp{Kind: op.Kind, Path: op.Path, Data: op.Data, Create: op.Create}
	}
	rec.files, rec.err = root.Commit(id, disk, TestCommitHooks)
	close(rec.done)
	reply := &luaCommitReply{Files: make([]luaDiskState, 0, len(rec.files))}
	for i, f := range rec.files {
		st := luaDiskState{Path: ops[i].Path, Disk: f.State, Note: f.Note}
		if ops[i].Kind == "write" && f.State == "new" {
			st.Fingerprint = fingerprint(ops[i].Data)
		}
		reply.Files = append(reply.Files, st)
	}
	if rec.err != nil {
		reply.Err = luaErrorOf(rec.err)
	}
	return reply
}

// fingerprint is buffers.lua's content fingerprint (nvim.Fingerprint).
func fingerprint(data []byte) string { return nvim.Fingerprint(data) }

// takeCommit returns and forgets the record of commit id, once that commit
// ended; nil when no commit ran under it. After a failed apply call
// (abandon), a commit that has not started yet never will.
func takeCommit(id string, abandon bool) *commitRecord {
	commits.Lock()
	rec := commits.byID[id]
	if rec == nil {
		if abandon {
			commits.byID[id] = &commitRecord{abandoned: true}
		}
		commits.Unlock()
		return nil
	}
	commits.Unlock()
	<-rec.done // a commit never waits on anything but the disk
	commits.Lock()
	delete(commits.byID, id)
	commits.Unlock()
	return rec
}

func luaErrorOf(err error) *nvim.LuaError {
	e := apierr.As(err)
	return &nvim.LuaError{Code: string(e.Code), Message: e.Message, Remediation: e.Remediation}
}

// recoverInterrupted settles the commits an earlier nvbridge left
// unfinished on the root (workspace.Root.Recover) and makes the buffers of
// the files it completed agree with the disk (apply.follow_disk). What it
// did is logged and shown by get_status (Root.Recoveries).
func (e *Engine) recoverInterrupted(ctx context.Context) []workspace.Recovery {
	recs := e.root.Recover()
	for _, rec := range recs {
		var paths []string
		for _, f := range rec.Files {
			paths = append(paths, e.root.Dir()+"/"+f.Path)
		}
		_ = e.s.FollowDisk(ctx, paths, e.root.Dir())
	}
	return recs
}

// needsDisk reports whether a plan writes to the disk (a save, or a
// deletion, which has no unsaved form).
func needsDisk(plan luaPlan) bool {
	if plan.Save {
		return true
	}
	for _, f := range plan.Files {
		if f.Kind == "delete" {
			return true
		}
	}
	return false
}

// interrupted is the answer when the apply call itself failed (Neovim
// ended, or the connection broke): what reached the disk is known here,
// from the commit's record.
func (e *Engine) interrupted(callErr error, rec *commitRecord) error {
	ae := apierr.As(callErr)
	switch {
	case rec == nil:
		c := *ae
		c.Message += " (nothing was written to disk)"
		return &c
	case rec.err != nil:
		return rec.err
	default:
		return apierr.Errorf(apierr.PartialResult,
			"the files listed hold the change on disk; Neovim's buffers of them are gone or unknown: reopen the files",
			"the change reached the disk (%d file(s): every file holds it), but the apply did not finish in Neovim: %s", len(rec.files), ae.Message).
			WithDetails(map[string]any{"files": rec.files})
	}
}
