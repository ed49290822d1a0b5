package tools

import (
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
)

// editingTools lists the editing tools (one file per tool).
func editingTools(env *Env) []Tool {
	return []Tool{
		editBufferTool(env),
		replaceInBufferTool(env),
		applyPatchTool(env),
		applyChangesetTool(env),
		runTestsTool(env),
		checkChangesetTool(env),
		getChangesetDiffTool(env),
		discardChangesetTool(env),
		undoTool(env),
		revertAllChangesTool(env),
		getBufferDiffTool(env),
		saveBufferTool(env),
		discardBufferTool(env),
	}
}

// previewArg is the preview switch every changeset tool takes.
type previewArg struct {
	Preview *bool  `json:"preview,omitempty" jsonschema:"true (the default): change nothing, return the unified diff (its first 16 KiB when larger: diff_cut says where get_changeset_diff reads on) and a changeset_id for apply_changeset; false: apply at once (the result then has diagnostics_delta: errors and warnings the change introduced and resolved)"`
	Check   bool   `json:"check,omitempty" jsonschema:"with a preview: also report diagnostics_delta before anything is applied (the servers diagnose the new text in a second Neovim the user never sees; the first check starts it)"`
	Require string `json:"require,omitempty" jsonschema:"with preview: false: no_new_errors checks the change first and applies it only when it introduces no error; otherwise nothing changes and the answer (PRECONDITION_FAILED) lists the errors with their quick fixes. With a preview it is a check"`
}

func (p previewArg) preview() bool { return p.Preview == nil || *p.Preview }

func (p previewArg) check() bool { return (p.Check || p.Require != "") && p.preview() }

// require is the apply's condition (preview: false only; a preview with
// require is checked instead).
func (p previewArg) require() string {
	if p.preview() {
		return ""
	}
	return p.Require
}

// bufferState is the state of the one buffer a single-file tool edited.
type bufferState struct {
	IsModified bool `json:"is_modified"`
	LineCount  int  `json:"line_count"`
	Saved      bool `json:"saved"`
}

// changesetResult is what the changeset tools return; BufferState is set
// for single-file tools once applied.
type changesetResult struct {
	edit.Result
	BufferState *bufferState `json:"buffer_state,omitempty"`
}

func singleFileResult(r edit.Result) changesetResult {
	out := changesetResult{Result: r}
	if r.Applied && len(r.Files) == 1 {
		f := r.Files[0]
		out.BufferState = &bufferState{IsModified: f.IsModified, LineCount: f.LineCount, Saved: f.Saved}
	}
	return out
}

func (r changesetResult) Summary() string { return r.Result.Summary() }

// bufferStateSummary renders a buffer tool's answer.
func bufferStateSummary(action string, s edit.BufferState) string {
	out := fmt.Sprintf("%s %s", action, s.File)
	if s.IsOpen {
		out += fmt.Sprintf(": %d lines, modified=%v", s.LineCount, s.IsModified)
	}
	if s.Note != "" {
		out += " (" + s.Note + ")"
	}
	return out
}
