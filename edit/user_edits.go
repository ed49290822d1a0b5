package edit

// Edit then accept: the user, asked to approve a changeset, changes the
// proposed text of some files before accepting. What is applied is then
// their text, checked against the same snapshots as the proposal (CONFLICT
// when a buffer moved meanwhile), and the answer shows the agent what the
// user changed.

import (
	"context"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// ProposedFile is one file's text after the change, offered to the user to
// edit before accepting (files edited or created by the changeset).
type ProposedFile struct {
	Path string `msgpack:"path"` // absolute
	Rel  string `msgpack:"rel"`
	Text string `msgpack:"text"`
}

// Decision is the user's acceptance. Edited holds, by absolute path, the
// text of each file they changed before accepting; empty when they
// accepted the proposal as it is. Hunks, when the user decided hunk by
// hunk, are the indexes of the hunks they accepted (Approval.Hunks); nil
// accepts them all.
type Decision struct {
	Edited map[string]string
	Hunks  []int
}

// proposals lists the files the user may edit before accepting, when the
// changeset still holds its texts after the change.
func proposals(p *prepared) []ProposedFile {
	if len(p.after) != len(p.files) {
		return nil
	}
	var out []ProposedFile
	for i, f := range p.files {
		if f.Kind != "edit" && f.Kind != "create" {
			continue
		}
		out = append(out, ProposedFile{Path: f.Path, Rel: p.results[i].Path, Text: p.after[i].Text()})
	}
	return out
}

// withUserEdits returns p with the user's texts in place of the proposal
// for the files in edited, and the diff from the proposal to their text.
// Each such file must still be as it was when the proposal was made.
func (e *Engine) withUserEdits(ctx context.Context, p *prepared, edited map[string]string) (*prepared, string, error) {
	out := *p
	out.files = append([]luaFile(nil), p.files...)
	out.results = append([]FileResult(nil), p.results...)
	out.after = append([]preview.Document(nil), p.after...)
	var userChanges preview.Changeset
	for i, f := range p.files {
		text, ok := edited[f.Path]
		if !ok || i >= len(p.after) || text == p.after[i].Text() {
			continue // not edited (or edited back to the proposal)
		}
		rel := p.results[i].Path
		snaps, err := e.s.Snapshot(ctx, []string{f.Path}, nvim.SnapshotOptions{})
		if err != nil {
			return nil, "", err
		}
		snap := snaps[0]
		if snap.Err != nil {
			return nil, "", e.luaError(snap.Err)
		}
		if !stillExpected(f.Expect, snap) {
			return nil, "", apierr.Errorf(apierr.Conflict, "preview the change again; the user can edit it again when asked",
				"%s changed while the user reviewed the change (nothing was changed)", rel)
		}
		current := documentOf(snap)
		kind := preview.OpEdit
		if f.Kind == "create" {
			kind = preview.OpCreate
			current = preview.Document{Lines: []string{}, EOL: p.after[i].EOL}
		}
		user := preview.ParseDocument(text)
		if user.EOL == "" || len(user.Lines) <= 1 {
			user.EOL = p.after[i].EOL
		}
		fc := preview.FileChange{Path: rel, Kind: kind, Old: current, Edits: []preview.TextEdit{wholeText(current, user)}}
		if kind == preview.OpCreate {
			fc.Old = preview.Document{}
		}
		pf, err := e.prepareFile(fc, target{abs: f.Path, rel: rel, snap: snap}, target{}, false)
		if err != nil {
			return nil, "", err
		}
		out.edits += pf.result.Edits - p.results[i].Edits
		pf.result.Note = joinNote(pf.result.Note, "edited by the user before accepting (see user_diff)")
		out.files[i], out.results[i], out.after[i] = pf.lua, pf.result, pf.after
		edits, err := preview.Minimize(p.after[i], []preview.TextEdit{wholeText(p.after[i], user)})
		if err == nil && len(edits) > 0 {
			userChanges.Files = append(userChanges.Files, preview.FileChange{Path: rel, Kind: preview.OpEdit, Old: p.after[i], Edits: edits})
		}
	}
	if len(userChanges.Files) == 0 {
		return &out, "", nil
	}
	diff, err := preview.UnifiedDiff(userChanges)
	if err != nil {
		return nil, "", apierr.Errorf(apierr.OperationFailed, "report this: nvbridge could not render the user's change", "render the diff: %v", err)
	}
	return &out, diff, nil
}
